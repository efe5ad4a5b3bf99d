package io.taskmesh.gateway.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.ConflictResponse;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.http.NotFoundResponse;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.gateway.http.RequestBodies;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The REST face of the caller's own tasks (api and testing modes), for people's tools such as
 * {@code ./taskmesh tasks}: {@code GET /tasks} lists them newest first and {@code POST
 * /tasks/{id}/cancel} cancels one, {@code POST /tasks/{id}/input} answers one that waits for input
 * (paused: the handler's question is its {@code question}). Same auth and owner isolation as {@code
 * GET /tasks/{id}}: a foreign task is never listed and cancelling one answers 404.
 */
public final class TaskListRoutes {
  static final int DEFAULT_LIMIT = 50;
  static final int MAX_LIMIT = 500;

  private final TaskQueries queries;
  private final TaskCommands commands;
  private final TaskListing listing;
  private final Function<Context, String> owner;
  private final BiPredicate<TaskState, String> ownedBy;
  private final BiConsumer<String, JsonNode> resume;

  /**
   * @param owner authenticates the request and returns the owner its tasks carry (401 otherwise)
   * @param ownedBy whether a task is visible to that owner
   * @param resume hands a paused task the input it continues with
   */
  public TaskListRoutes(
      TaskQueries queries,
      TaskCommands commands,
      Function<Context, String> owner,
      BiPredicate<TaskState, String> ownedBy,
      BiConsumer<String, JsonNode> resume) {
    this.resume = resume;
    this.queries = queries;
    this.commands = commands;
    this.listing = TaskListing.of(queries);
    this.owner = owner;
    this.ownedBy = ownedBy;
  }

  public void mount(JavalinConfig cfg) {
    cfg.routes.get("/tasks", this::list);
    cfg.routes.post("/tasks/{id}/cancel", this::cancel);
    cfg.routes.post("/tasks/{id}/input", this::input);
  }

  /** {@code GET /tasks?status=&flow=&limit=&offset=}: one page of the caller's tasks. */
  private void list(Context ctx) {
    String who = owner.apply(ctx);
    Predicate<TaskState> filter = filter(ctx.queryParam("status"), ctx.queryParam("flow"));
    int limit = intParam(ctx, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT);
    int offset = intParam(ctx, "offset", 0, 0, Integer.MAX_VALUE);
    TaskListing.Page page = listing.list(who, filter, offset, limit);
    List<Map<String, Object>> tasks = new ArrayList<>();
    for (TaskState s : page.tasks()) {
      tasks.add(listed(s));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("tasks", tasks);
    body.put("total", page.total());
    body.put("offset", page.offset());
    ctx.json(body);
  }

  /**
   * {@code POST /tasks/{id}/cancel}: 202 once the cancel is appended (the fold makes it {@code
   * canceled}; watch {@code /stream/{id}} for the final update), 409 when the task is over.
   */
  private void cancel(Context ctx) {
    String who = owner.apply(ctx);
    String id = ctx.pathParam("id");
    // the route takes no body; one that is there must be a JSON object, so a garbled request
    // (a client sending something else than it meant) never cancels
    if (ctx.bodyAsBytes().length > 0) {
      JsonNode bodyId = RequestBodies.object(RequestBodies.json(ctx)).get("id");
      if (bodyId != null && !(bodyId.isTextual() && bodyId.asText().equals(id))) {
        throw new BadRequestResponse("field 'id' must be the task id of the path (" + id + ")");
      }
    }
    TaskState state = owned(id, who);
    if (state.status() != null && state.status().isFinal()) {
      throw new ConflictResponse("task " + id + " is already " + state.status().wire());
    }
    commands.append(TaskEvent.canceled(id, "canceled by the client"));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", id);
    body.put("status", "cancel_requested");
    ctx.status(HttpStatus.ACCEPTED).json(body);
  }

  /**
   * {@code POST /tasks/{id}/input} with a JSON object (a text answer is {@code {"text": "..."}},
   * what an A2A text message gives): 202 once the paused task resumes with it (x-pause puts it in
   * {@code payload.input}), 409 when the task does not wait for input.
   */
  private void input(Context ctx) {
    String who = owner.apply(ctx);
    String id = ctx.pathParam("id");
    JsonNode answer = RequestBodies.object(RequestBodies.json(ctx));
    TaskState state = owned(id, who);
    if (state.status() != TaskStatus.PAUSED) {
      throw new ConflictResponse(
          "task "
              + id
              + " does not wait for input: it is "
              + (state.status() == null ? "unknown" : state.status().wire()));
    }
    resume.accept(id, answer);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("id", id);
    body.put("status", "resumed");
    ctx.status(HttpStatus.ACCEPTED).json(body);
  }

  private TaskState owned(String id, String who) {
    return queries
        .get(id)
        .filter(s -> ownedBy.test(s, who))
        .orElseThrow(() -> new NotFoundResponse("task not found: " + id));
  }

  /** The task's read form plus the flow it runs, which a list is filtered and read by. */
  static Map<String, Object> listed(TaskState s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("flow", s.flow());
    m.putAll(TaskViews.task(s));
    return m;
  }

  static Predicate<TaskState> filter(String status, String flow) {
    Predicate<TaskState> filter = s -> true;
    if (status != null && !status.isBlank()) {
      TaskStatus wanted = TaskStatus.fromWire(status.trim());
      if (wanted == TaskStatus.UNKNOWN && !"unknown".equals(status.trim())) {
        throw new BadRequestResponse(
            "unknown status '"
                + status
                + "'; one of pending, running, paused, "
                + "succeeded, failed, canceled, auth_required, unknown");
      }
      filter = filter.and(s -> s.status() == wanted);
    }
    if (flow != null && !flow.isBlank()) {
      filter = filter.and(s -> Objects.equals(flow.trim(), s.flow()));
    }
    return filter;
  }

  private static int intParam(Context ctx, String name, int fallback, int min, int max) {
    String raw = ctx.queryParam(name);
    if (raw == null || raw.isBlank()) {
      return fallback;
    }
    try {
      int value = Integer.parseInt(raw.trim());
      if (value < min || value > max) {
        throw new BadRequestResponse("'" + name + "' must be between " + min + " and " + max);
      }
      return value;
    } catch (NumberFormatException e) {
      throw new BadRequestResponse("'" + name + "' must be a whole number");
    }
  }
}

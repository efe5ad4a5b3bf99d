package io.taskmesh.gateway.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.ConflictResponse;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.http.NotFoundResponse;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.follow.NewTaskQueries;
import io.taskmesh.gateway.follow.TaskStreams;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.gateway.http.RequestBodies;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Progress;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Times;
import io.taskmesh.schemas.Topics;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The legacy routes of the mesh deployment ({@code /mesh/*} and {@code POST /tasks}): reads of a
 * task, its SSE, the reports actors post (progress, final, FLY), the fan-out creates as producers
 * of {@code child_created} events, and the flow config reload.
 *
 * <ul>
 *   <li>{@code GET /mesh/{id}}: the mesh form of the task; {@code GET /mesh/{id}/stream}: its SSE
 *       without FLY; {@code GET /mesh/{id}/active}: 200 {@code {active: true}} while it runs, else
 *       410.
 *   <li>{@code POST /mesh/{id}/progress}: the route form (prev, curr, next) or the index form
 *       (actors, current_actor_idx); answers the new percentage.
 *   <li>{@code POST /mesh/{id}/fly}: one FLY event (a JSON object) to the task's subscribers.
 *   <li>{@code POST /mesh}: body {@code id, parent_id, prev, curr, next}; 201 {@code {status:
 *       created, id}}.
 *   <li>{@code POST /tasks}: body {@code id, parent_id, actors, current} (one child), or a JSON
 *       array of such bodies (one per frame of a fan-out). The child at index 0 keeps {@code id};
 *       index n >= 1 becomes {@code <id>-<n>}; an object may carry {@code index} to say which frame
 *       it is. 201 {@code {status: created, id, ids}}.
 *   <li>{@code POST /mesh/{id}/final}: {@code status} succeeded / failed, or paused (what the
 *       sidecar posts when the x-pause header parks an envelope) which appends a {@code paused}
 *       event.
 *   <li>{@code POST /mesh/config-reload}: re-reads the flow config now.
 * </ul>
 *
 * A child that already exists is left as it is (the event is a no-op), so a retried create is
 * answered 201 again. The child's {@code context_id} is its parent id (or its own id without one).
 */
public final class MeshTaskRoutes {
  private final TaskQueries queries;
  private final TaskCommands commands;
  private final FlyBus fly;
  private final FlowRegistry flows;
  private final TaskStreams streams;

  public MeshTaskRoutes(
      TaskQueries queries,
      TaskCommands commands,
      FlyBus fly,
      FlowRegistry flows,
      TaskStreams streams) {
    this.queries = queries;
    this.commands = commands;
    this.fly = fly;
    this.flows = flows;
    this.streams = streams;
  }

  public void mount(JavalinConfig cfg) {
    cfg.routes.get(
        "/mesh/{id}",
        ctx -> {
          TaskState s = task(ctx.pathParam("id"));
          ctx.json(TaskViews.mesh(s, childrenOf(s)));
        });
    cfg.routes.get("/mesh/{id}/stream", ctx -> streams.stream(ctx, ctx.pathParam("id"), false));
    cfg.routes.get("/mesh/{id}/active", this::active);
    cfg.routes.post("/mesh/{id}/progress", this::progress);
    cfg.routes.post("/mesh/{id}/final", this::finalReport);
    cfg.routes.post("/mesh", this::createMesh);
    cfg.routes.post("/tasks", this::createTasks);
    cfg.routes.post("/mesh/{id}/fly", this::flyEvent);
    cfg.routes.post(
        "/mesh/config-reload",
        ctx -> {
          flows.reload();
          ctx.json(Map.of("status", "ok"));
        });
  }

  /**
   * {@code GET /mesh/{id}/active}: 200 while the task runs, 410 once final or past its deadline.
   */
  private void active(Context ctx) {
    TaskState s = task(ctx.pathParam("id"));
    boolean timedOut = s.deadlineAt() != null && Instant.now().isAfter(Times.parse(s.deadlineAt()));
    boolean active = !s.isFinal() && !timedOut;
    ctx.status(active ? HttpStatus.OK : HttpStatus.GONE).json(Map.of("active", active));
  }

  /** {@code POST /mesh/{id}/progress}. */
  private void progress(Context ctx) {
    String id = ctx.pathParam("id");
    JsonNode body = RequestBodies.object(RequestBodies.json(ctx));
    // Jackson would turn "55" into 55: the spec's index is a JSON integer, nothing else
    JsonNode idx = body.get("current_actor_idx");
    if (idx != null && !idx.isNull() && !idx.isIntegralNumber()) {
      throw new BadRequestResponse("field 'current_actor_idx' must be an integer");
    }
    ProgressReport report = RequestBodies.convert(body, ProgressReport.class);
    if (!report.indexForm() && report.curr() == null) {
      throw new BadRequestResponse(
          "progress needs the route form (prev, curr, next) or the index form"
              + " (actors, current_actor_idx)");
    }
    if (report.indexForm()
        && (report.currentActorIdx() < 0 || report.currentActorIdx() >= report.actors().size())) {
      throw new BadRequestResponse("current_actor_idx must index into actors");
    }
    double percent;
    try {
      percent = Progress.percent(report);
    } catch (IllegalArgumentException e) {
      throw new BadRequestResponse(e.getMessage());
    }
    commands.append(TaskEvent.progress(id, report));
    ctx.json(Map.of("status", "ok", "progress_percent", percent));
  }

  /** {@code POST /mesh/{id}/fly}. */
  private void flyEvent(Context ctx) {
    JsonNode body = RequestBodies.json(ctx);
    if (!body.isObject()) {
      throw new BadRequestResponse("a FLY event must be a JSON object");
    }
    fly.publish(ctx.pathParam("id"), body);
    ctx.status(HttpStatus.OK);
  }

  /**
   * The ids of the fan-out children of {@code parent}: the tasks whose {@code parent_id} is its id
   * (children share their parent's owner, so one owner's listing holds them), oldest first.
   */
  private List<String> childrenOf(TaskState parent) {
    List<TaskState> children =
        new ArrayList<>(
            TaskListing.of(queries)
                .list(parent.owner(), s -> parent.id().equals(s.parentId()), 0, Integer.MAX_VALUE)
                .tasks());
    Collections.reverse(children);
    return children.stream().map(TaskState::id).toList();
  }

  private TaskState task(String id) {
    return queries.get(id).orElseThrow(() -> new NotFoundResponse("task not found: " + id));
  }

  /** {@code POST /mesh}. */
  private void createMesh(Context ctx) {
    JsonNode body = RequestBodies.object(RequestBodies.json(ctx));
    String id = text(body, "id", true);
    String parent = text(body, "parent_id", false);
    String curr = text(body, "curr", true);
    notCrew(curr, "curr");
    Route route = new Route(strings(body, "prev"), curr, strings(body, "next"));
    // a task is created once: a second create with its id would be folded away unseen, so the
    // client would read 201 for a task that is not the one it described
    if (NewTaskQueries.withoutWaiting(queries).get(id).isPresent()) {
      throw new ConflictResponse("task " + id + " already exists");
    }
    appendChild(id, parent, route, body.get("payload"));
    ctx.status(HttpStatus.CREATED).json(Map.of("status", "created", "id", id));
  }

  /** {@code POST /tasks}. */
  private void createTasks(Context ctx) {
    JsonNode body = RequestBodies.json(ctx);
    List<JsonNode> items = new ArrayList<>();
    if (body.isArray()) {
      if (body.isEmpty()) {
        throw new BadRequestResponse("an array of children must not be empty");
      }
      body.forEach(items::add);
    } else {
      items.add(RequestBodies.object(body));
    }
    // validate every child before appending any, so a bad one changes nothing
    List<Map.Entry<String, TaskEvent>> children = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = RequestBodies.object(items.get(i));
      String id = text(item, "id", true);
      String parent = text(item, "parent_id", false);
      List<String> actors = strings(item, "actors");
      if (actors.isEmpty()) {
        throw new BadRequestResponse("field 'actors' must be a non-empty array of actor names");
      }
      JsonNode current = item.get("current");
      if (current == null || !current.canConvertToInt() || !current.isIntegralNumber()) {
        throw new BadRequestResponse("field 'current' must be an integer index into actors");
      }
      int cur = current.asInt();
      if (cur < 0 || cur >= actors.size()) {
        throw new BadRequestResponse(
            "field 'current' must index into actors (0.." + (actors.size() - 1) + ")");
      }
      notCrew(actors.get(cur), "actors[" + cur + "]");
      int index = i;
      JsonNode explicit = item.get("index");
      if (explicit != null && !explicit.isNull()) {
        if (!explicit.isIntegralNumber() || explicit.asInt() < 0) {
          throw new BadRequestResponse("field 'index' must be a non-negative integer");
        }
        index = explicit.asInt();
      }
      String childId = childId(id, index);
      Route route =
          new Route(
              actors.subList(0, cur), actors.get(cur), actors.subList(cur + 1, actors.size()));
      children.add(Map.entry(childId, childEvent(childId, parent, route, item.get("payload"))));
    }
    Map<String, Boolean> seen = new LinkedHashMap<>();
    for (Map.Entry<String, TaskEvent> c : children) {
      if (seen.put(c.getKey(), true) != null) {
        throw new BadRequestResponse("two children would get the id " + c.getKey());
      }
    }
    children.forEach(c -> commands.append(c.getValue()));
    List<String> ids = List.copyOf(seen.keySet());
    ctx.status(HttpStatus.CREATED).json(Map.of("status", "created", "id", ids.get(0), "ids", ids));
  }

  /** The spec's fan-out id rule: index 0 keeps the id, index n >= 1 is {@code <id>-<n>}. */
  static String childId(String id, int index) {
    return index == 0 ? id : id + "-" + index;
  }

  /** {@code POST /mesh/{id}/final}: succeeded, failed, or paused. */
  private void finalReport(Context ctx) {
    String id = ctx.pathParam("id");
    JsonNode body = RequestBodies.object(RequestBodies.json(ctx));
    JsonNode bodyId = body.get("id");
    if (bodyId != null && !bodyId.isNull() && !(bodyId.isTextual() && bodyId.asText().equals(id))) {
      throw new BadRequestResponse("field 'id' must be the task id of the path (" + id + ")");
    }
    JsonNode error = body.get("error");
    if (error != null && !error.isNull() && !error.isTextual()) {
      throw new BadRequestResponse("field 'error' must be a string");
    }
    FinalReport report;
    try {
      report = Json.MAPPER.treeToValue(body, FinalReport.class);
    } catch (IOException | IllegalArgumentException e) {
      throw new BadRequestResponse("invalid final report: " + RequestBodies.bindingError(e));
    }
    TaskStatus status = report.status();
    if (status == TaskStatus.PAUSED) {
      commands.append(TaskEvent.paused(id, report));
    } else if (status != null && status.isOutcome()) {
      commands.append(TaskEvent.finished(id, report));
    } else {
      throw new BadRequestResponse("field 'status' must be succeeded, failed or paused");
    }
    ctx.json(Map.of("status", "ok"));
  }

  private void appendChild(String id, String parent, Route route, JsonNode payload) {
    commands.append(childEvent(id, parent, route, payload));
  }

  /**
   * A child inherits its parent's flow, owner and deadline when the parent is known, so the
   * parent's owner sees it in task listings (A2A {@code tasks/list} filtered by parent id).
   */
  private TaskEvent childEvent(String id, String parent, Route route, JsonNode payload) {
    TaskState p = parent == null ? null : queries.get(parent).orElse(null);
    return TaskEvent.childCreated(
        id,
        new TaskEvent.Created(
            p == null ? null : p.flow(),
            route,
            payload,
            parent,
            parent != null ? parent : id,
            p == null ? null : p.deadlineAt(),
            p == null ? null : p.owner()));
  }

  private static String text(JsonNode body, String field, boolean required) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      if (required) {
        throw new BadRequestResponse("field '" + field + "' is required");
      }
      return null;
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw new BadRequestResponse("field '" + field + "' must be a non-empty string");
    }
    if (v.asText().contains("/")) {
      throw new BadRequestResponse("field '" + field + "' must not contain '/'");
    }
    // an id with a NUL or a line break names a task no URL can reach
    if (v.asText().chars().anyMatch(Character::isISOControl)) {
      throw new BadRequestResponse("field '" + field + "' must not contain control characters");
    }
    return v.asText();
  }

  /** The actor a task is created at runs its handler: a crew actor (x-sink, ...) cannot. */
  private static void notCrew(String actor, String field) {
    if (Topics.isCrewActor(actor)) {
      throw new BadRequestResponse(
          "field '" + field + "' names the crew actor '" + actor + "', which cannot run a task");
    }
  }

  private static List<String> strings(JsonNode body, String field) {
    JsonNode v = body.get(field);
    if (v == null || v.isNull()) {
      return List.of();
    }
    if (!v.isArray()) {
      throw new BadRequestResponse("field '" + field + "' must be an array of strings");
    }
    List<String> out = new ArrayList<>();
    for (JsonNode n : v) {
      if (!n.isTextual()
          || n.asText().isBlank()
          || n.asText().chars().anyMatch(Character::isISOControl)) {
        throw new BadRequestResponse(
            "field '"
                + field
                + "' must be an array of non-empty strings without control characters");
      }
      out.add(n.asText());
    }
    return out;
  }
}

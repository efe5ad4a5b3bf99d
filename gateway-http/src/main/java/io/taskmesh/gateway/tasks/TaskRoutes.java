package io.taskmesh.gateway.tasks;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.ContentTooLargeResponse;
import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import io.taskmesh.gateway.follow.TaskOwners;
import io.taskmesh.gateway.follow.TaskStreams;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.gateway.http.RequestBodies;
import io.taskmesh.gateway.launch.ToolArguments;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskQueries;
import java.util.function.Function;

/**
 * One task for clients: {@code GET /tasks/{id}} reads it (every mode); in the api and testing modes
 * {@code POST /tools/call} starts one and {@code GET /stream/{id}} follows it.
 */
public final class TaskRoutes {
  private final TaskQueries queries;
  private final ToolCalls toolCalls;
  private final TaskStreams streams;
  private final Function<Context, String> owner;
  private final boolean everyTaskVisible;

  /**
   * @param owner authenticates the request and returns the owner its tasks carry (401 otherwise)
   * @param everyTaskVisible the mesh mode: internal (network isolation), so {@code GET /tasks/{id}}
   *     answers for every task without asking who calls
   */
  public TaskRoutes(
      TaskQueries queries,
      ToolCalls toolCalls,
      TaskStreams streams,
      Function<Context, String> owner,
      boolean everyTaskVisible) {
    this.queries = queries;
    this.toolCalls = toolCalls;
    this.streams = streams;
    this.owner = owner;
    this.everyTaskVisible = everyTaskVisible;
  }

  /** {@code GET /tasks/{id}}; after the dashboard's {@code /tasks/stream}, which it would take. */
  public void mountRead(JavalinConfig cfg) {
    cfg.routes.get("/tasks/{id}", ctx -> ctx.json(TaskViews.task(visibleTask(ctx))));
  }

  /** {@code POST /tools/call} and {@code GET /stream/{id}} (api and testing modes). */
  public void mountCallAndStream(JavalinConfig cfg) {
    cfg.routes.post("/tools/call", this::callTool);
    cfg.routes.get(
        "/stream/{id}",
        ctx -> {
          String caller = owner.apply(ctx);
          streams.stream(
              ctx, ctx.pathParam("id"), true, state -> TaskOwners.visibleTo(state, caller));
        });
  }

  /**
   * {@code POST /tools/call}: 400 no name / bad JSON / arguments not matching the schema, 404
   * unknown tool, 413 arguments over {@link ToolCalls#MAX_ARGUMENT_BYTES}, 500 when dispatch fails.
   */
  private void callTool(Context ctx) {
    String caller = owner.apply(ctx);
    JsonNode body = RequestBodies.json(ctx);
    JsonNode name = body.get("name");
    if (name == null || !name.isTextual() || name.asText().isBlank()) {
      throw new BadRequestResponse("field 'name' is required (a registered tool name)");
    }
    JsonNode arguments = body.get("arguments");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      throw new BadRequestResponse("field 'arguments' must be an object");
    }
    String id;
    try {
      id = toolCalls.start(name.asText(), arguments, caller);
    } catch (ToolCalls.UnknownTool e) {
      throw new NotFoundResponse(e.getMessage());
    } catch (ToolArguments.InvalidArguments e) {
      throw new BadRequestResponse(e.getMessage());
    } catch (ToolCalls.ArgumentsTooLarge e) {
      throw new ContentTooLargeResponse(e.getMessage());
    }
    ctx.json(ToolCalls.callToolResult(id));
  }

  /**
   * In the api and testing modes only the owner's tasks are visible (an anonymous caller's are the
   * anonymous tasks) and a foreign task answers 404 like an unknown one.
   */
  private TaskState visibleTask(Context ctx) {
    String id = ctx.pathParam("id");
    if (everyTaskVisible) {
      return task(id);
    }
    String caller = owner.apply(ctx);
    TaskState state = task(id);
    if (!TaskOwners.visibleTo(state, caller)) {
      throw new NotFoundResponse("task not found: " + id);
    }
    return state;
  }

  private TaskState task(String id) {
    return queries.get(id).orElseThrow(() -> new NotFoundResponse("task not found: " + id));
  }
}

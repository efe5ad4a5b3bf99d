package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskCommands;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The legacy fan-out routes of the mesh deployment, as producers of {@code child_created} events,
 * and the final report with the paused status x-pause's sidecar sends.
 *
 * <ul>
 *   <li>{@code POST /mesh}: body {@code id, parent_id, prev, curr, next}; 201
 *       {@code {status: created, id}}.
 *   <li>{@code POST /tasks}: body {@code id, parent_id, actors, current} (one child), or a JSON
 *       array of such bodies (one per frame of a fan-out). The child at index 0 keeps {@code id};
 *       index n >= 1 becomes {@code <id>-<n>}; an object may carry {@code index} to say which
 *       frame it is. 201 {@code {status: created, id, ids}}.
 *   <li>{@code POST /mesh/{id}/final}: {@code status} succeeded / failed, or paused (what the
 *       sidecar posts when the x-pause header parks an envelope) which appends a {@code paused}
 *       event.
 * </ul>
 *
 * A child that already exists is left as it is (the event is a no-op), so a retried create is
 * answered 201 again. The child's {@code context_id} is its parent id (or its own id without one).
 */
final class MeshTaskRoutes {
  private final TaskCommands commands;

  MeshTaskRoutes(TaskCommands commands) {
    this.commands = commands;
  }

  /** {@code POST /mesh}. */
  void createMesh(Context ctx) {
    JsonNode body = object(body(ctx));
    String id = text(body, "id", true);
    String parent = text(body, "parent_id", false);
    String curr = text(body, "curr", true);
    Route route = new Route(strings(body, "prev"), curr, strings(body, "next"));
    appendChild(id, parent, route, body.get("payload"));
    ctx.status(HttpStatus.CREATED).json(Map.of("status", "created", "id", id));
  }

  /** {@code POST /tasks}. */
  void createTasks(Context ctx) {
    JsonNode body = body(ctx);
    List<JsonNode> items = new ArrayList<>();
    if (body.isArray()) {
      if (body.isEmpty()) {
        throw new BadRequestResponse("an array of children must not be empty");
      }
      body.forEach(items::add);
    } else {
      items.add(object(body));
    }
    // validate every child before appending any, so a bad one changes nothing
    List<Map.Entry<String, TaskEvent>> children = new ArrayList<>();
    for (int i = 0; i < items.size(); i++) {
      JsonNode item = object(items.get(i));
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
        throw new BadRequestResponse("field 'current' must index into actors (0.." + (actors.size() - 1) + ")");
      }
      int index = i;
      JsonNode explicit = item.get("index");
      if (explicit != null && !explicit.isNull()) {
        if (!explicit.isIntegralNumber() || explicit.asInt() < 0) {
          throw new BadRequestResponse("field 'index' must be a non-negative integer");
        }
        index = explicit.asInt();
      }
      String childId = childId(id, index);
      Route route = new Route(actors.subList(0, cur), actors.get(cur), actors.subList(cur + 1, actors.size()));
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
  void finalReport(Context ctx) {
    String id = ctx.pathParam("id");
    JsonNode body = object(body(ctx));
    FinalReport report;
    try {
      report = Json.MAPPER.treeToValue(body, FinalReport.class);
    } catch (IOException | IllegalArgumentException e) {
      throw new BadRequestResponse("invalid final report: " + firstLine(e.getMessage()));
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

  private static TaskEvent childEvent(String id, String parent, Route route, JsonNode payload) {
    return TaskEvent.childCreated(id, new TaskEvent.Created(null, route, payload, parent,
        parent != null ? parent : id, null, null));
  }

  private static JsonNode body(Context ctx) {
    try {
      JsonNode node = Json.MAPPER.readTree(ctx.bodyAsBytes());
      if (node == null || node.isMissingNode()) {
        throw new BadRequestResponse("request body must be JSON");
      }
      return node;
    } catch (IOException e) {
      throw new BadRequestResponse("invalid JSON: " + firstLine(e.getMessage()));
    }
  }

  private static JsonNode object(JsonNode node) {
    if (!node.isObject()) {
      throw new BadRequestResponse("request body must be a JSON object");
    }
    return node;
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
    return v.asText();
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
      if (!n.isTextual() || n.asText().isBlank()) {
        throw new BadRequestResponse("field '" + field + "' must be an array of non-empty strings");
      }
      out.add(n.asText());
    }
    return out;
  }

  private static String firstLine(String s) {
    return s == null ? "" : s.lines().findFirst().orElse("");
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.follow.PageToken;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;

/**
 * The caller's tasks as MCP resources: {@code taskmesh://tasks/{id}} is the JSON of {@code GET
 * /tasks/{id}}; a subscription hears {@code notifications/resources/updated} after each update of
 * the task. A foreign or unknown task is "resource not found" (-32002), as the spec names it.
 */
final class McpResources {
  static final String PREFIX = "taskmesh://tasks/";
  static final int RESOURCE_NOT_FOUND = -32002;
  private static final String MIME = "application/json";

  private final McpTasks tasks;
  private final TaskListing listing;

  McpResources(McpTasks tasks, TaskQueries queries) {
    this.tasks = tasks;
    this.listing = TaskListing.of(queries);
  }

  ObjectNode list(JsonNode params, String owner) {
    int offset = McpTasks.offset(params.get("cursor"));
    TaskListing.Page page = listing.list(owner, s -> true, offset, McpTasks.PAGE_SIZE);
    ObjectNode r = Json.MAPPER.createObjectNode();
    ArrayNode list = r.putArray("resources");
    for (TaskState s : page.tasks()) {
      ObjectNode res = list.addObject();
      res.put("uri", PREFIX + s.id());
      res.put("name", "task " + s.id());
      res.put("title", (s.flow() == null ? "task" : s.flow()) + " (" + s.status().wire() + ")");
      res.put("mimeType", MIME);
    }
    if (page.offset() + page.tasks().size() < page.total()) {
      r.put("nextCursor", PageToken.encode(page.offset() + page.tasks().size()));
    }
    return r;
  }

  ObjectNode templates() {
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.putArray("resourceTemplates")
        .addObject()
        .put("uriTemplate", PREFIX + "{id}")
        .put("name", "task")
        .put("title", "A taskmesh task by id")
        .put("description", "The state of one of your tasks: status, progress, result")
        .put("mimeType", MIME);
    return r;
  }

  ObjectNode read(JsonNode params, String owner) {
    String uri = uri(params);
    TaskState s = task(uri, owner);
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.putArray("contents")
        .addObject()
        .put("uri", uri)
        .put("mimeType", MIME)
        .put("text", Json.write(TaskViews.task(s)));
    return r;
  }

  /**
   * {@link #read} as 2026-07-28 answers it: an unknown resource is -32602 naming its URI (the
   * session era: -32002).
   */
  ObjectNode readNamingUri(JsonNode params, String owner) {
    try {
      return read(params, owner);
    } catch (McpError e) {
      if (e.code() != RESOURCE_NOT_FOUND) {
        throw e;
      }
      ObjectNode data = Json.MAPPER.createObjectNode().put("uri", params.path("uri").asText());
      throw new McpError(JsonRpcError.INVALID_PARAMS, "Resource not found", data);
    }
  }

  /** Subscribes the session to the task's updates (a second subscribe to one URI is a no-op). */
  ObjectNode subscribe(JsonNode params, McpSession session) {
    String uri = uri(params);
    TaskState s = task(uri, session.owner());
    session
        .subscriptions()
        .computeIfAbsent(
            uri,
            u ->
                tasks.watch(
                    s.id(),
                    session.owner(),
                    state ->
                        session.send(
                            McpTasks.notification(
                                "notifications/resources/updated",
                                Json.MAPPER.createObjectNode().put("uri", u)))));
    return Json.MAPPER.createObjectNode();
  }

  ObjectNode unsubscribe(JsonNode params, McpSession session) {
    AutoCloseable sub = session.subscriptions().remove(uri(params));
    if (sub != null) {
      Subscriptions.closeQuietly(sub);
    }
    return Json.MAPPER.createObjectNode();
  }

  private static String uri(JsonNode params) {
    JsonNode uri = params.get("uri");
    if (uri == null || !uri.isTextual() || uri.asText().isBlank()) {
      throw McpError.invalidParams("'uri' must be a resource URI");
    }
    return uri.asText();
  }

  private TaskState task(String uri, String owner) {
    String id = uri.startsWith(PREFIX) ? uri.substring(PREFIX.length()) : "";
    if (id.isEmpty() || id.contains("/")) {
      throw new McpError(RESOURCE_NOT_FOUND, "Resource not found: " + uri);
    }
    return tasks
        .find(id, owner)
        .orElseThrow(() -> new McpError(RESOURCE_NOT_FOUND, "Resource not found: " + uri));
  }
}

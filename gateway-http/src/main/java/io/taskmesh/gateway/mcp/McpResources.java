package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.spec.McpSchema.ListResourceTemplatesResult;
import io.modelcontextprotocol.spec.McpSchema.ListResourcesResult;
import io.modelcontextprotocol.spec.McpSchema.ReadResourceResult;
import io.modelcontextprotocol.spec.McpSchema.Resource;
import io.modelcontextprotocol.spec.McpSchema.ResourceTemplate;
import io.modelcontextprotocol.spec.McpSchema.ResourcesUpdatedNotification;
import io.modelcontextprotocol.spec.McpSchema.TextResourceContents;
import io.taskmesh.gateway.follow.PageToken;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.follow.TaskViews;
import io.taskmesh.gateway.mcp.wire.EmptyResult;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import java.util.List;
import java.util.Map;

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

  ListResourcesResult list(JsonNode params, String owner) {
    int offset = McpTasks.offset(params.get("cursor"));
    return page(listing.list(owner, s -> true, offset, McpTasks.PAGE_SIZE));
  }

  /** One page of the caller's tasks as resources; the cursor of the next page when there is one. */
  static ListResourcesResult page(TaskListing.Page page) {
    List<Resource> resources = page.tasks().stream().map(McpResources::resource).toList();
    int next = page.offset() + page.tasks().size();
    return new ListResourcesResult(
        resources, next < page.total() ? PageToken.encode(next) : null, null);
  }

  /** A task as a resource: its URI, a name, and a title naming its flow and status. */
  static Resource resource(TaskState s) {
    String title = (s.flow() == null ? "task" : s.flow()) + " (" + s.status().wire() + ")";
    return new Resource(
        PREFIX + s.id(), "task " + s.id(), title, null, MIME, null, null, null, null);
  }

  /** The one template: a task by id. */
  static ListResourceTemplatesResult templates() {
    ResourceTemplate task =
        new ResourceTemplate(
            PREFIX + "{id}",
            "task",
            "A taskmesh task by id",
            "The state of one of your tasks: status, progress, result",
            MIME,
            null,
            null,
            null);
    return new ListResourceTemplatesResult(List.of(task), null, null);
  }

  ReadResourceResult read(JsonNode params, String owner) {
    String uri = uri(params);
    return contents(uri, task(uri, owner));
  }

  /** The resource's one content: the task's JSON as {@code GET /tasks/{id}} answers it. */
  static ReadResourceResult contents(String uri, TaskState s) {
    return new ReadResourceResult(
        List.of(new TextResourceContents(uri, MIME, Json.write(TaskViews.task(s)), null)), null);
  }

  /**
   * {@link #read} as 2026-07-28 answers it: an unknown resource is -32602 naming its URI (the
   * session era: -32002).
   */
  ReadResourceResult readNamingUri(JsonNode params, String owner) {
    try {
      return read(params, owner);
    } catch (McpError e) {
      if (e.code() != RESOURCE_NOT_FOUND) {
        throw e;
      }
      throw new McpError(
          JsonRpcError.INVALID_PARAMS,
          "Resource not found",
          Map.of("uri", params.path("uri").asText()));
    }
  }

  /** Subscribes the session to the task's updates (a second subscribe to one URI is a no-op). */
  EmptyResult subscribe(JsonNode params, McpSession session) {
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
                                new ResourcesUpdatedNotification(u)))));
    return EmptyResult.INSTANCE;
  }

  EmptyResult unsubscribe(JsonNode params, McpSession session) {
    AutoCloseable sub = session.subscriptions().remove(uri(params));
    if (sub != null) {
      Subscriptions.closeQuietly(sub);
    }
    return EmptyResult.INSTANCE;
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

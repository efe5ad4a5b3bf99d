package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * A 2026-07-28 {@code tools/call} with a {@code progressToken} from a client that did not declare
 * the tasks extension. Such a client asked to hear the call's progress, and in this revision it
 * hears a request's progress only on that request's own response stream; so the answer is that SSE
 * stream: {@code notifications/progress} from the task's real progress (the first names the task
 * id, so the client can follow it with {@code subscriptions/listen} or read it as a resource), then
 * the tool result once the task is final, as {@code tasks/result} gives it in the session era.
 * Without a token the call keeps its immediate answer with the task id.
 */
final class McpStreamedCall {
  private final McpTasks tasks;

  McpStreamedCall(McpTasks tasks) {
    this.tasks = tasks;
  }

  static boolean applies(JsonNode params) {
    return params != null
        && params.path("_meta").hasNonNull("progressToken")
        && !McpTaskExtension.declaredBy(params);
  }

  /** Answers request {@code id} on its own stream, following the started task {@code taskId}. */
  void answer(HttpServletRequest req, JsonNode id, JsonNode params, String taskId, String owner) {
    JsonNode token = params.path("_meta").get("progressToken");
    SseChannel channel = new SseChannel("call-" + UUID.randomUUID(), false);
    AsyncContext async = req.startAsync();
    channel.attach(async, 0, false);
    ObjectNode started = Json.MAPPER.createObjectNode();
    started.set("progressToken", token);
    started.put("progress", 0);
    started.put("total", 100);
    started.put("message", "task " + taskId + " started");
    channel.send(McpTasks.notification("notifications/progress", started));
    Consumer<TaskState> progress = tasks.follow(taskId, owner, token, false, channel::send, 0);
    CompletableFuture<TaskState> done = tasks.terminal(taskId, owner);
    async.addListener(new OnStreamEnd(() -> done.cancel(false)));
    done.thenAccept(
        s -> {
          progress.accept(s); // the last progress goes out before the result
          ObjectNode result = McpTaskViews.toolResult(s);
          result.remove("_meta"); // the task id is in structuredContent and the first progress
          result.put("resultType", "complete");
          ObjectNode m = Json.MAPPER.createObjectNode();
          m.put("jsonrpc", "2.0");
          m.set("id", id);
          m.set("result", result);
          channel.sendLast(Json.write(m));
        });
  }
}

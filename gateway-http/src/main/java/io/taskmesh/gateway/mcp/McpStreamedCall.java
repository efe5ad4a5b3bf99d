package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.wire.ToolResult;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.sse.SseWriters;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * A 2026-07-28 {@code tools/call} with a {@code progressToken} from a client that did not declare
 * the tasks extension. Such a client asked to hear the call's progress, and in this revision it
 * hears a request's progress only on that request's own response stream; so the answer is that SSE
 * stream: {@code notifications/progress} from the task's real progress (the first names the task
 * id, so the client can follow it with {@code subscriptions/listen} or read it as a resource), then
 * the tool's answer once the task is final ({@link McpTasks#answer}). Without a token the call is
 * answered the same way, only without progress.
 */
final class McpStreamedCall {
  private final McpTasks tasks;
  private final SseWriters writers;

  McpStreamedCall(McpTasks tasks, SseWriters writers) {
    this.tasks = tasks;
    this.writers = writers;
  }

  /** Answers request {@code id} on its own stream, following the started task {@code taskId}. */
  void answer(
      HttpServletRequest req, JsonNode id, McpTasks.PlainCall call, String taskId, String owner) {
    McpStream channel = new McpStream("call-" + UUID.randomUUID(), false, writers);
    AsyncContext async = req.startAsync();
    channel.attach(async, 0, false);
    CompletableFuture<Object> done = tasks.answer(taskId, owner, call, channel::send, null);
    async.addListener(new OnStreamEnd(() -> done.cancel(false)));
    done.thenAccept(
        result -> {
          // a tool result loses its _meta (the task id is in the first progress, the text or the
          // state) and says it is complete; an input_required result says what it is already
          Object answer = result instanceof ToolResult r ? r.inlined() : result;
          channel.sendLast(Json.write(McpSessionCalls.success(id, answer)));
        });
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.wire.JsonRpcResult;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The session era's messages over the method table: a request's answer is the whole JSON-RPC
 * response, a future done at once except for the methods that wait ({@code tools/call}, {@code
 * tasks/result}); an error is the response's error object, whatever the transport carries it on.
 */
final class McpSessionCalls {
  private final McpMethods methods;

  McpSessionCalls(McpMethods methods) {
    this.methods = methods;
  }

  /**
   * Answers a request (a message with {@code method} and {@code id}): the whole response, a record
   * ({@link JsonRpcResult}, or the error response) that Jackson writes.
   */
  CompletableFuture<Object> request(McpSession session, JsonNode message) {
    return request(session, message, session::send);
  }

  /**
   * Answers a request; what the request itself sends while it waits (a plain {@code tools/call}'s
   * progress) goes to {@code requestStream}, the stream its answer will come on.
   */
  CompletableFuture<Object> request(
      McpSession session, JsonNode message, Consumer<String> requestStream) {
    McpCall call = McpCall.inSession(session, message, requestStream);
    CompletableFuture<?> result;
    try {
      result = methods.call(McpMethods.Era.SESSION, call);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.handle(
        (r, e) ->
            e == null
                ? success(call.id(), r)
                : McpFailures.of(call.id(), call.method(), e).response());
  }

  /** Takes a notification or a response from the client; none needs an answer. */
  void notification(McpSession session, JsonNode message) {
    if (!message.has("method")) {
      session.answered(message); // a response to our elicitation/create
    }
    // notifications/initialized, notifications/cancelled (our tasks run on: tasks/cancel stops
    // them), roots/list_changed: nothing to do
  }

  static JsonRpcResult success(JsonNode id, Object result) {
    return JsonRpcResult.of(id, result);
  }
}

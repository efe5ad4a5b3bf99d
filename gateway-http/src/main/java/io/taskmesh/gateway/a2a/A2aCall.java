package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.gateway.http.SseAcceptFilter;
import io.taskmesh.schemas.Json;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * One JSON-RPC call being answered: its params, its caller, whether it answers as SSE, and the ways
 * to answer (one JSON response now or later, or a stream).
 */
public final class A2aCall {
  private final Context ctx;
  private final JsonRpc.Request request;
  private final String principal;
  private final boolean streaming;
  private final A2aSse sse;
  private final A2aWire wire;

  A2aCall(
      Context ctx,
      JsonRpc.Request request,
      String principal,
      boolean streaming,
      A2aSse sse,
      A2aWire wire) {
    this.ctx = ctx;
    this.request = request;
    this.principal = principal;
    this.streaming = streaming;
    this.sse = sse;
    this.wire = wire;
  }

  ObjectNode params() {
    return request.paramsObject();
  }

  /** The task owner of the caller (null while A2A auth is off). */
  String principal() {
    return principal;
  }

  /**
   * Whether the answer is SSE: message/stream, tasks/resubscribe, message/send to an SSE client.
   */
  boolean streaming() {
    return streaming;
  }

  /** The payload form of push configs this call registers (its binding's). */
  String pushForm() {
    return wire.pushForm();
  }

  Context context() {
    return ctx;
  }

  /** Answers {@code result} (a typed A2A object, a JSON tree, or null). */
  void reply(Object result) {
    wire.reply(ctx, request.id(), result == null ? null : Json.tree(result));
  }

  void replyError(int code, String message) {
    wire.error(ctx, request.id(), new A2aException(code, message));
  }

  /**
   * Answers when {@code answered} completes (it replies itself); the request stays open till then.
   */
  void replyWhen(CompletableFuture<?> answered) {
    ctx.future(() -> answered);
  }

  void stream(String taskId, List<? extends StreamResult> first, StreamMapper mapper)
      throws Exception {
    sse.stream(ctx, wire, request.id(), taskId, first, mapper);
  }

  /** An error: one SSE event when the call streams to an SSE client, else a JSON-RPC error. */
  void fail(A2aException e) {
    if (streaming
        && wire.errorsAsEvents()
        && acceptsEventStream(ctx)
        && sse.error(ctx, wire, request.id(), e)) {
      return;
    }
    wire.error(ctx, request.id(), e);
  }

  /** Writes a JSON answer with status 200. */
  static void json(Context ctx, ObjectNode response) {
    ctx.status(HttpStatus.OK).contentType("application/json").result(Json.write(response));
  }

  /**
   * The client's own Accept (before {@link SseAcceptFilter#posts}) names {@code text/event-stream}.
   */
  static boolean acceptsEventStream(Context ctx) {
    Object original = ctx.attribute(SseAcceptFilter.ORIGINAL_ACCEPT);
    String accept =
        original != null
            ? original.toString()
            : Objects.requireNonNullElse(ctx.header("Accept"), "");
    return accept.toLowerCase(Locale.ROOT).contains("text/event-stream");
  }
}

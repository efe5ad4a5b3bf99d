package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.sse.SseClient;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.gateway.http.JavalinSseSink;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriters;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;

/**
 * One A2A SSE response: every event is one {@code data:} line (no {@code event:} line) in the
 * wire's form (0.3: a JSON-RPC response whose {@code id} is the request's id, same JSON type). The
 * kit's {@link SseWriter} with the {@link SsePolicy#A2A_STREAM} limits writes them in order on the
 * A2A endpoint's {@link SseWriters} (counted in {@code taskmesh_sse_clients}, kept alive, drained
 * with a {@code retry:} on shutdown like task streams), so feed threads never block on a slow
 * client; after the final event the stream is closed, and a client that falls {@value #MAX_QUEUED}
 * events behind is disconnected.
 */
final class A2aStream {
  static final int MAX_QUEUED = SsePolicy.REPLAYABLE_BACKLOG;

  private final A2aWire wire;
  private final JsonNode requestId;
  private final SseWriter writer;

  /**
   * {@code onClose} runs once when the stream ends, whichever way (final event, failed write,
   * shutdown drain): it unsubscribes the stream's feeds.
   */
  A2aStream(
      SseClient client, A2aWire wire, JsonNode requestId, SseWriters writers, Runnable onClose) {
    this.wire = wire;
    this.requestId = requestId;
    // a caller holding this stream's lock (A2aSse, while it subscribes) holds the writing back
    // too: a client reacting to the first event is then never ahead of the subscriptions
    UnaryOperator<Executor> afterCaller =
        pool ->
            task ->
                pool.execute(
                    () -> {
                      synchronized (this) {
                        // only waits for the caller to let go
                      }
                      task.run();
                    });
    this.writer = writers.open(new JavalinSseSink(client), onClose, afterCaller);
  }

  /** True once the stream has ended (its feeds are unsubscribed, or are being). */
  boolean isClosed() {
    return writer.isClosed();
  }

  /** Queues A2A results (Task, status-update, artifact-update), in order. */
  synchronized void send(List<? extends StreamResult> results) {
    for (StreamResult r : results) {
      writer.send(data(wire.event(requestId, Json.tree(r))));
    }
  }

  synchronized void sendError(A2aException e) {
    writer.send(data(wire.errorEvent(requestId, e)));
  }

  /** Ends the stream now (the client went away). Not under the lock: a writer may hold it. */
  void close() {
    writer.close();
  }

  /** Closes the stream once everything queued so far is written. */
  synchronized void finish() {
    writer.finish();
  }

  private static SseWriter.Frame data(String json) {
    return new SseWriter.Frame(null, json, null, false, false);
  }
}

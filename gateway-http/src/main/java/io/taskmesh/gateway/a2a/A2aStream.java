package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.sse.SseClient;
import io.taskmesh.schemas.Json;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One A2A SSE response: every event is one {@code data:} line in the wire's form (0.3: a JSON-RPC
 * response whose {@code id} is the request's id, same JSON type). Writes run in order on a shared
 * executor so feed threads never block on a slow client; after the final event the stream is
 * closed. A client that falls {@value #MAX_QUEUED} events behind is disconnected.
 */
final class A2aStream {
  private static final Logger LOG = LoggerFactory.getLogger(A2aStream.class);
  static final int MAX_QUEUED = 1000;
  private static final Object CLOSE = new Object();

  private final SseClient client;
  private final A2aWire wire;
  private final JsonNode requestId;
  private final Executor writer;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private boolean draining;
  private boolean closing;

  A2aStream(SseClient client, A2aWire wire, JsonNode requestId, Executor writer) {
    this.client = client;
    this.wire = wire;
    this.requestId = requestId;
    this.writer = writer;
  }

  /** Queues A2A results (Task, status-update, artifact-update), in order. */
  synchronized void send(List<? extends StreamResult> results) {
    for (StreamResult r : results) {
      enqueue(wire.event(requestId, Json.tree(r)));
    }
  }

  synchronized void sendError(A2aException e) {
    enqueue(wire.errorEvent(requestId, e));
  }

  synchronized void comment(String text) {
    if (!closing) {
      enqueue(new Comment(text));
    }
  }

  /** Closes the stream once everything queued so far is written. */
  synchronized void finish() {
    if (!closing) {
      closing = true;
      queue.add(CLOSE);
      drain();
    }
  }

  private record Comment(String text) {}

  private void enqueue(Object item) {
    if (closing) {
      return;
    }
    if (queue.size() >= MAX_QUEUED) {
      LOG.warn("A2A stream client is {} events behind; closing it", MAX_QUEUED);
      closing = true;
      queue.clear();
      queue.add(CLOSE);
    } else {
      queue.add(item);
    }
    drain();
  }

  private void drain() {
    if (!draining) {
      draining = true;
      writer.execute(this::writeAll);
    }
  }

  private void writeAll() {
    while (true) {
      Object item;
      synchronized (this) {
        item = queue.poll();
        if (item == null) {
          draining = false;
          return;
        }
      }
      if (item == CLOSE) {
        client.close();
      } else if (client.terminated()) {
        continue;
      } else if (item instanceof Comment c) {
        client.sendComment(c.text());
      } else {
        client.sendData(item);
      }
    }
  }
}

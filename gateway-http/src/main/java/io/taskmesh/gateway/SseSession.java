package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.sse.SseClient;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Executor;

/**
 * One SSE client of one task. Updates are sent in sequence order exactly once: live updates that
 * arrive before the history replay are held back, and anything at or below the last sent
 * sequence number (or the client's {@code Last-Event-ID}) is skipped. Writes happen on a shared
 * executor so the Kafka feed thread never blocks on a slow client; a client whose queue
 * overflows is closed (it can reconnect with {@code Last-Event-ID} and lose nothing).
 */
final class SseSession {
  static final int MAX_QUEUED = 1000;
  /** The spec's FLY subscriber buffer: FLY beyond it is dropped (at most once), not queued. */
  static final int MAX_QUEUED_FLY = 100;
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SseSession.class);

  private final SseClient client;
  private final Executor writer;
  private final ArrayDeque<Object> queue = new ArrayDeque<>();
  private final List<TaskUpdate> heldBack = new ArrayList<>();
  private boolean replayed;
  private boolean draining;
  private boolean closed;
  private long lastSent;
  private int queuedFly;

  SseSession(SseClient client, Executor writer, long lastEventId) {
    this.client = client;
    this.writer = writer;
    this.lastSent = lastEventId;
  }

  /** Sends the stored history, then whatever arrived live meanwhile. */
  synchronized void replay(List<TaskUpdate> history) {
    heldBack.addAll(history);
    heldBack.sort(Comparator.comparingLong(TaskUpdate::seq));
    replayed = true;
    heldBack.forEach(this::enqueue);
    heldBack.clear();
  }

  synchronized void onUpdate(TaskUpdate update) {
    if (!replayed) {
      heldBack.add(update);
    } else {
      enqueue(update);
    }
  }

  synchronized void onFly(JsonNode fly) {
    if (queuedFly >= MAX_QUEUED_FLY) {
      LOG.warn("FLY buffer of an SSE client is full; dropping an event");
      return;
    }
    queuedFly++;
    enqueue(fly);
  }

  synchronized void sendComment(String comment) {
    enqueue(new Comment(comment));
  }

  synchronized boolean isClosed() {
    return closed;
  }

  private record Comment(String text) {}

  private void enqueue(Object item) {
    if (closed) {
      return;
    }
    if (queue.size() >= MAX_QUEUED) {
      closed = true;
      queue.clear();
      writer.execute(client::close);
      return;
    }
    queue.add(item);
    if (!draining) {
      draining = true;
      writer.execute(this::drain);
    }
  }

  private void drain() {
    while (true) {
      Object item;
      synchronized (this) {
        item = queue.poll();
        if (item instanceof JsonNode) {
          queuedFly--;
        }
        if (item == null || closed) {
          draining = false;
          return;
        }
      }
      if (!write(item)) {
        synchronized (this) {
          closed = true;
          queue.clear();
          draining = false;
        }
        client.close();
        return;
      }
    }
  }

  /** Writes one item; false when the stream is done (final update sent or client gone). */
  private boolean write(Object item) {
    if (client.terminated()) {
      return false;
    }
    if (item instanceof TaskUpdate u) {
      synchronized (this) {
        if (u.seq() <= lastSent) {
          return true;
        }
        lastSent = u.seq();
      }
      client.sendEvent("update", Json.write(u), Long.toString(u.seq()));
      return !u.isFinal();
    }
    if (item instanceof JsonNode fly) {
      client.sendEvent(FlyBus.eventType(fly), Json.write(fly), null);
      return true;
    }
    client.sendComment(((Comment) item).text());
    return true;
  }
}

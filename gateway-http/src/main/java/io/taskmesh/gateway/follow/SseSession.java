package io.taskmesh.gateway.follow;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * One SSE client of one task. Updates are sent in sequence order exactly once: live updates that
 * arrive before the history replay are held back, and anything at or below the last queued sequence
 * number (or the client's {@code Last-Event-ID}) is skipped. The {@link SseWriter} does the writing
 * (the Kafka feed thread never blocks on a slow client); under the task-stream policy a client too
 * far behind is closed (it can reconnect with {@code Last-Event-ID} and lose nothing) and FLY past
 * the spec's buffer is dropped. The final update closes the stream.
 */
final class SseSession {
  private final SseWriter writer;
  private final List<TaskUpdate> heldBack = new ArrayList<>();
  private boolean replayed;
  private long lastQueued;

  SseSession(SseWriter writer, long lastEventId) {
    this.writer = writer;
    this.lastQueued = lastEventId;
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

  /** FLY is at most once: past the buffer it is dropped, never queued. */
  void onFly(JsonNode fly) {
    writer.send(new Frame(FlyBus.eventType(fly), Json.write(fly), null, true, false));
  }

  void sendComment(String comment) {
    writer.comment(comment);
  }

  boolean isClosed() {
    return writer.isClosed();
  }

  private void enqueue(TaskUpdate u) {
    if (u.seq() <= lastQueued) {
      return;
    }
    lastQueued = u.seq();
    writer.send(new Frame("update", Json.write(u), Long.toString(u.seq()), false, u.isFinal()));
  }
}

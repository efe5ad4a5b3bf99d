package io.taskmesh.gateway.follow;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import java.util.List;

/**
 * One SSE client of one task. Updates are sent in sequence order exactly once ({@link
 * OrderedUpdates}: after the client's {@code Last-Event-ID}, live ones held back until the history
 * is replayed). The {@link SseWriter} does the writing (the Kafka feed thread never blocks on a
 * slow client); under the task-stream policy a client too far behind is closed (it can reconnect
 * with {@code Last-Event-ID} and lose nothing) and FLY past the spec's buffer is dropped. The final
 * update closes the stream.
 */
final class SseSession {
  private final SseWriter writer;
  private final OrderedUpdates updates;

  SseSession(SseWriter writer, long lastEventId) {
    this.writer = writer;
    this.updates = new OrderedUpdates(lastEventId, this::enqueue);
  }

  /** Sends the stored history, then whatever arrived live meanwhile. */
  void replay(List<TaskUpdate> history) {
    updates.replay(history);
  }

  void onUpdate(TaskUpdate update) {
    updates.live(update);
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
    writer.send(new Frame("update", Json.write(u), Long.toString(u.seq()), false, u.isFinal()));
  }
}

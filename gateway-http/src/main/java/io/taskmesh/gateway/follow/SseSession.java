package io.taskmesh.gateway.follow;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;

/**
 * One SSE client of one task. Updates come in sequence order, each once, after the client's {@code
 * Last-Event-ID} ({@link StreamFollow} orders them). The {@link SseWriter} does the writing (the
 * Kafka feed thread never blocks on a slow client); under the task-stream policy a client too far
 * behind is closed (it can reconnect with {@code Last-Event-ID} and lose nothing) and FLY past the
 * spec's buffer is dropped. The final update closes the stream.
 */
final class SseSession {
  private final SseWriter writer;

  SseSession(SseWriter writer) {
    this.writer = writer;
  }

  /** Sends one update; the final one ends the stream. */
  void onUpdate(TaskUpdate u) {
    writer.send(new Frame("update", Json.write(u), Long.toString(u.seq()), false, u.isFinal()));
  }

  /** FLY is at most once: past the buffer it is dropped, never queued. */
  void onFly(JsonNode fly) {
    writer.send(new Frame(FlyBus.eventType(fly), Json.write(fly), null, true, false));
  }
}

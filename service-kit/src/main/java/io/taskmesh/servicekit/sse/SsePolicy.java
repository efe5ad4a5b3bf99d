package io.taskmesh.servicekit.sse;

import java.time.Duration;

/**
 * The limits of one kind of SSE stream.
 *
 * @param maxQueued frames waiting for a slow client before the writer gives up on it and closes the
 *     stream (the client reconnects; with {@code Last-Event-ID} it loses nothing); {@link
 *     Integer#MAX_VALUE}: never
 * @param maxQueuedDroppable droppable frames (FLY: at most once, never replayed) waiting at most;
 *     more are dropped with a warning, the stream stays open. The spec's subscriber buffer is 100
 * @param keepaliveEvery how often a keepalive comment goes out (the spec: 15 s)
 * @param keepaliveComment the comment's text
 */
public record SsePolicy(
    int maxQueued, int maxQueuedDroppable, Duration keepaliveEvery, String keepaliveComment) {
  /** The spec's FLY subscriber buffer. */
  public static final int SPEC_FLY_BUFFER = 100;

  /** The spec's keepalive interval. */
  public static final Duration SPEC_KEEPALIVE = Duration.ofSeconds(15);

  /** How far a client of a replayable stream may fall behind before it is cut off. */
  public static final int REPLAYABLE_BACKLOG = 1000;

  /**
   * The gateway's task streams ({@code /stream/{id}}, {@code /mesh/{id}/stream}): updates are
   * replayable, so a client 1000 frames behind is closed and reconnects; FLY past 100 is dropped.
   */
  public static final SsePolicy TASK_STREAM =
      new SsePolicy(REPLAYABLE_BACKLOG, SPEC_FLY_BUFFER, SPEC_KEEPALIVE, "keepalive");

  /**
   * mesh-api's {@code /mesh/{id}/events}: status events are few (one per transition) and are never
   * cut off; FLY past 100 is dropped.
   */
  public static final SsePolicy MESH_EVENTS =
      new SsePolicy(Integer.MAX_VALUE, SPEC_FLY_BUFFER, SPEC_KEEPALIVE, "keepalive");

  /** The A2A streams: nothing droppable; a client 1000 events behind is closed. */
  public static final SsePolicy A2A_STREAM =
      new SsePolicy(REPLAYABLE_BACKLOG, Integer.MAX_VALUE, SPEC_KEEPALIVE, "keepalive");

  public SsePolicy {
    if (maxQueued < 1 || maxQueuedDroppable < 0) {
      throw new IllegalArgumentException("queue limits must be positive");
    }
    if (keepaliveEvery.isZero() || keepaliveEvery.isNegative()) {
      throw new IllegalArgumentException("keepalive interval must be positive");
    }
  }

  /**
   * The same limits with another keepalive interval (a configured one, or a short one in tests).
   */
  public SsePolicy withKeepalive(Duration every) {
    return new SsePolicy(maxQueued, maxQueuedDroppable, every, keepaliveComment);
  }
}

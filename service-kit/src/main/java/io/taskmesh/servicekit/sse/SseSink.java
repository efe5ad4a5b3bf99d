package io.taskmesh.servicekit.sse;

import java.io.IOException;

/**
 * Where an {@link SseWriter} puts its frames: one client connection. Kept this small so the kit
 * needs no web framework; each server adapts its own client type (a Javalin {@code SseClient}, a
 * servlet output stream). Calls come from one writer thread at a time.
 */
public interface SseSink {
  /**
   * One event; {@code event} null: no {@code event:} line; {@code id} null: no {@code id:} line.
   */
  void event(String event, String data, String id) throws IOException;

  /** One comment line (a keepalive); clients ignore it. */
  void comment(String text) throws IOException;

  /**
   * A {@code retry:} field: how long the client waits before it reconnects. Sent before the server
   * closes streams on shutdown, so clients come back (with {@code Last-Event-ID}) to another
   * replica soon, not after their default delay.
   */
  void retry(long millis) throws IOException;

  /**
   * Sends what the calls since the last flush left pending, for a sink that gathers the frames of
   * one run of queued events into one write (one syscall and one packet instead of one per frame).
   * The writer calls it when its queue is empty, every {@link SseWriter#FLUSH_EVERY} frames, and
   * before it closes the stream. The default has nothing pending: each call wrote at once.
   */
  default void flush() throws IOException {}

  /** False once the client has gone: nothing more is written. */
  boolean isOpen();

  /** Ends the response. Called once, after the last frame or when the writer gives up. */
  void close();
}

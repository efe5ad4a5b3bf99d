package io.taskmesh.cli.client;

import io.taskmesh.unixhttp.SseParser;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.Consumer;

/**
 * Hands each event of a gateway stream to a consumer, parsed by the project's one SSE parser
 * (unix-http's {@link SseParser}; comments skipped). Returns when the server closes the stream; a
 * dropped connection surfaces as an IOException, which the caller turns into a resume.
 */
public final class EventStreams {
  private EventStreams() {}

  /**
   * Reads server-sent events from {@code body} until it ends.
   *
   * @param onEvent gets each event; it may throw {@link StopReading} to end early
   */
  public static void read(InputStream body, Consumer<SseEvent> onEvent) throws IOException {
    SseParser parser = new SseParser(new BufferedInputStream(body), false);
    for (SseParser.Event e = parser.next(); e != null; e = parser.next()) {
      try {
        onEvent.accept(new SseEvent(e.id(), e.event(), e.data()));
      } catch (StopReading stop) {
        return;
      }
    }
  }

  /** Thrown by a consumer that has seen what it waited for. */
  public static final class StopReading extends RuntimeException {
    public StopReading() {
      super(null, null, false, false);
    }
  }
}

package io.taskmesh.cli.client;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.function.Consumer;

/**
 * Reads an event stream line by line (the WHATWG rules a gateway stream uses: {@code id},
 * {@code event}, multi-line {@code data}, comments ignored) and hands each complete event on.
 * Returns when the server closes the stream; a dropped connection surfaces as the reader's
 * IOException, which the caller turns into a resume.
 */
public final class SseParser {
  private SseParser() {}

  /**
   * @param onEvent gets each event; returns nothing, but may throw {@link StopReading} to end early
   */
  public static void read(BufferedReader in, Consumer<SseEvent> onEvent) throws IOException {
    String id = null;
    String event = null;
    StringBuilder data = null;
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isEmpty()) {
        if (data != null) {
          try {
            onEvent.accept(new SseEvent(id, event == null ? "message" : event, data.toString()));
          } catch (StopReading stop) {
            return;
          }
        }
        id = null;
        event = null;
        data = null;
        continue;
      }
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "id" -> id = value;
        case "event" -> event = value;
        case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
        default -> { } // retry and unknown fields: nothing to do for a client that resumes itself
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

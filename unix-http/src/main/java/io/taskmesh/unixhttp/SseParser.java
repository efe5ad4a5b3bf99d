package io.taskmesh.unixhttp;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Parses a {@code text/event-stream} body as it arrives: {@code id:}, {@code event:}, {@code data:}
 * (several lines joined with a newline) and comment lines, each event ended by an empty line (CRLF
 * or LF). Unknown fields are ignored, as the SSE format asks.
 */
public final class SseParser {
  /** One event; {@code event} is {@code message} when the stream named none. */
  public record Event(String id, String event, String data) {}

  /** What a comment line ({@code :text}) is returned as, with the text in {@code data}. */
  public static final String COMMENT = "comment";

  private final InputStream in;
  private final boolean comments;
  private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

  /**
   * @param in the body, buffered (it is read one byte at a time)
   * @param comments whether comment lines come back as {@link #COMMENT} events or are skipped
   */
  public SseParser(InputStream in, boolean comments) {
    this.in = in;
    this.comments = comments;
  }

  /** The next event, or null when the stream ends. */
  public Event next() throws IOException {
    String id = null;
    String event = null;
    StringBuilder data = null;
    for (String l = readLine(); l != null; l = readLine()) {
      if (l.isEmpty()) {
        if (data != null || event != null) {
          return new Event(
              id, event == null ? "message" : event, data == null ? "" : data.toString());
        }
        id = null;
      } else if (l.startsWith(":")) {
        if (comments) {
          return new Event(null, COMMENT, l.substring(1).trim());
        }
      } else {
        int colon = l.indexOf(':');
        String field = colon < 0 ? l : l.substring(0, colon);
        String value = colon < 0 ? "" : l.substring(colon + 1);
        if (value.startsWith(" ")) {
          value = value.substring(1);
        }
        switch (field) {
          case "id" -> id = value;
          case "event" -> event = value;
          case "data" ->
              data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
          default -> {} // unknown fields are ignored
        }
      }
    }
    return null;
  }

  /** One line without its CR LF or LF, or null at the end of the stream. */
  private String readLine() throws IOException {
    line.reset();
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        int n = line.size();
        byte[] bytes = line.toByteArray();
        return new String(
            bytes, 0, n > 0 && bytes[n - 1] == '\r' ? n - 1 : n, StandardCharsets.UTF_8);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
  }
}

package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Why a task failed, beyond its one-line {@code error}: the actor whose handler failed, the
 * exception's type, the sidecar's reason code and the handler's traceback as Python's traceback
 * module printed it, cut to its last {@link #MAX_TRACEBACK_CHARS} characters (the innermost frames
 * and the exception line are at the end, so the end is what to keep).
 */
public record ErrorDetails(
    @JsonProperty("actor") String actor,
    @JsonProperty("type") String type,
    @JsonProperty("reason") String reason,
    @JsonProperty("traceback") String traceback) {

  /** 8 KiB of text: enough for a deep stack, small enough for every event, update and log line. */
  public static final int MAX_TRACEBACK_CHARS = 8192;

  public ErrorDetails {
    traceback = bounded(traceback);
  }

  /**
   * A failure as a person or a model reads it, the same on every protocol: the error, the actor
   * whose handler failed, then the handler's traceback when there is one.
   */
  public static String describe(String error, ErrorDetails details) {
    String text = error == null || error.isBlank() ? "the task failed" : error;
    if (details == null) {
      return text;
    }
    StringBuilder out = new StringBuilder(text);
    if (details.actor() != null) {
      out.append(" (in actor ").append(details.actor()).append(')');
    }
    if (details.traceback() != null) {
      out.append("\n\n").append(details.traceback());
    }
    return out.toString();
  }

  /** The last {@link #MAX_TRACEBACK_CHARS} characters, marked as cut when they are not all. */
  static String bounded(String traceback) {
    if (traceback == null || traceback.length() <= MAX_TRACEBACK_CHARS) {
      return traceback;
    }
    String marker = "...(traceback cut to its last " + MAX_TRACEBACK_CHARS + " characters)\n";
    return marker + traceback.substring(traceback.length() - MAX_TRACEBACK_CHARS + marker.length());
  }
}

package io.taskmesh.cli.watch;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The text of a task's progress: one bar line per actor, the overall line, the ending. Pure, so the
 * terminal view and the tests read the same lines.
 */
public final class ProgressLines {
  static final int BAR_WIDTH = 20;

  private ProgressLines() {}

  /** How full an actor's bar is for each of its states. */
  static double fill(String state) {
    return switch (state) {
      case "received" -> 1.0 / 3;
      case "processing" -> 2.0 / 3;
      case TaskProgress.COMPLETED -> 1.0;
      default -> 0.0;
    };
  }

  /** {@code " upper [##############......] processing"}: the names padded to the widest. */
  public static List<String> bars(TaskProgress p) {
    int width = p.actors().stream().mapToInt(a -> a.name().length()).max().orElse(0);
    List<String> lines = new ArrayList<>();
    for (TaskProgress.Actor a : p.actors()) {
      lines.add(
          String.format(
              Locale.ROOT, "  %-" + width + "s %s %s", a.name(), bar(fill(a.state())), a.state()));
    }
    lines.add(overall(p));
    return lines;
  }

  /** {@code "task 1a2b running [#######.............] 33%"} */
  public static String overall(TaskProgress p) {
    return String.format(
        Locale.ROOT,
        "task %s  %s  %s %3.0f%%",
        p.taskId(),
        p.status(),
        bar(p.percent() / 100),
        p.percent());
  }

  static String bar(double fraction) {
    int full = (int) Math.round(Math.max(0, Math.min(1, fraction)) * BAR_WIDTH);
    return "[" + "#".repeat(full) + ".".repeat(BAR_WIDTH - full) + "]";
  }

  /** A plain line for one update, for output that is not a terminal. */
  public static String plain(JsonNode update) {
    StringBuilder line = new StringBuilder();
    line.append(
        String.format(
            Locale.ROOT,
            "%3.0f%% %s",
            update.path("progress_percent").asDouble(0),
            update.path("status").asText("?")));
    if (update.hasNonNull("actor") && update.hasNonNull("actor_state")) {
      line.append(' ')
          .append(update.get("actor").asText())
          .append(' ')
          .append(update.get("actor_state").asText());
    }
    if (update.hasNonNull("message")) {
      line.append(": ").append(update.get("message").asText());
    }
    return line.toString();
  }

  /** The ending: the result pretty-printed, or the error, or why it stopped. */
  public static String ending(TaskProgress p) {
    if (p.succeeded()) {
      return "succeeded; result:\n" + pretty(p.result());
    }
    if (p.isWaiting()) {
      return p.status()
          + ": the task waits"
          + (p.message() == null ? "" : " (" + p.message() + ")");
    }
    String why = p.error() != null ? p.error() : p.message();
    return p.status() + (why == null ? "" : ": " + why);
  }

  public static String pretty(JsonNode value) {
    if (value == null) {
      return "null";
    }
    try {
      return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value);
    } catch (JsonProcessingException e) {
      return value.toString();
    }
  }

  /** The text a FLY event carries: its {@code text} or {@code token}, else the event as JSON. */
  public static String token(JsonNode fly) {
    for (String key : List.of("text", "token")) {
      if (fly.path(key).isTextual()) {
        return fly.get(key).asText();
      }
    }
    return fly.toString();
  }
}

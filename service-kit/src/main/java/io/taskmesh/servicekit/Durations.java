package io.taskmesh.servicekit;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses durations like {@code 300} (seconds), {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h},
 * {@code 1.5s}.
 */
public final class Durations {
  private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|s|m|h)?");

  private Durations() {}

  /**
   * Parses a duration setting.
   *
   * @throws ConfigException naming {@code variable} when the value is not a duration
   */
  public static Duration parse(String variable, String value) {
    Matcher m = FORM.matcher(value == null ? "" : value.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          variable, "must be a duration like 300, 500ms, 30s, 5m or 1h, got '" + value + "'");
    }
    double n = Double.parseDouble(m.group(1));
    String unit = m.group(2) == null ? "s" : m.group(2);
    double millis =
        switch (unit) {
          case "ms" -> n;
          case "s" -> n * 1_000;
          case "m" -> n * 60_000;
          default -> n * 3_600_000;
        };
    return Duration.ofMillis(Math.round(millis));
  }
}

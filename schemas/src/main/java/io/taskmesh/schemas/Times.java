package io.taskmesh.schemas;

import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/** ISO 8601 UTC timestamps with millisecond precision, as every wire record carries them. */
public final class Times {
  private Times() {}

  public static String iso(Instant t) {
    return DateTimeFormatter.ISO_INSTANT.format(t.truncatedTo(ChronoUnit.MILLIS));
  }

  public static String now() {
    return iso(Instant.now());
  }

  public static Instant parse(String iso) {
    return Instant.parse(iso);
  }
}

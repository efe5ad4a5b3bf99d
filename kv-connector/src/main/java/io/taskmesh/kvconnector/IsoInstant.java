package io.taskmesh.kvconnector;

import java.time.Instant;
import java.time.LocalDate;

/**
 * Appends an {@link Instant} exactly as {@link Instant#toString()} writes it ({@code
 * 2026-11-24T14:03:07.123456Z}: fraction in groups of three digits, none when zero), without going
 * through {@code DateTimeFormatter}, whose general machinery was a visible share of a GET's time on
 * the event loop. Years outside 1970..9999 take {@code toString()} itself.
 */
final class IsoInstant {
  /** 10000-01-01T00:00:00Z: from there on ISO_INSTANT writes a '+' and more year digits. */
  private static final long YEAR_10000 = 253_402_300_800L;

  private IsoInstant() {}

  /** {@code "2026-..."} with its quotes, as a JSON string; JSON {@code null} for null. */
  static void appendQuoted(StringBuilder sb, Instant t) {
    if (t == null) {
      sb.append("null");
      return;
    }
    sb.append('"');
    append(sb, t);
    sb.append('"');
  }

  static void append(StringBuilder sb, Instant t) {
    long seconds = t.getEpochSecond();
    if (seconds < 0 || seconds >= YEAR_10000) {
      sb.append(t);
      return;
    }
    LocalDate day = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400L));
    int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
    digits(sb, day.getYear(), 4).append('-');
    digits(sb, day.getMonthValue(), 2).append('-');
    digits(sb, day.getDayOfMonth(), 2).append('T');
    digits(sb, secondOfDay / 3600, 2).append(':');
    digits(sb, secondOfDay / 60 % 60, 2).append(':');
    digits(sb, secondOfDay % 60, 2);
    int nano = t.getNano();
    if (nano != 0) {
      sb.append('.');
      if (nano % 1_000_000 == 0) {
        digits(sb, nano / 1_000_000, 3);
      } else if (nano % 1000 == 0) {
        digits(sb, nano / 1000, 6);
      } else {
        digits(sb, nano, 9);
      }
    }
    sb.append('Z');
  }

  private static final int[] POWERS_OF_TEN = {
    1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000
  };

  /** {@code value} (non-negative) zero-padded to {@code width} (at most 9) digits. */
  private static StringBuilder digits(StringBuilder sb, int value, int width) {
    for (int d = width - 1; d > 0 && value < POWERS_OF_TEN[d]; d--) {
      sb.append('0');
    }
    return sb.append(value);
  }
}

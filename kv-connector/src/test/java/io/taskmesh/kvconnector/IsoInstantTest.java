package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link IsoInstant} writes exactly what {@link Instant#toString()} writes. */
@Timeout(30)
class IsoInstantTest {
  private static String written(Instant t) {
    StringBuilder sb = new StringBuilder();
    IsoInstant.append(sb, t);
    return sb.toString();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "1970-01-01T00:00:00Z",
        "1970-01-01T00:00:00.000000001Z",
        "2026-11-24T14:03:07.123456Z",
        "2026-11-24T14:03:07.120Z",
        "2026-11-24T14:03:07.100Z",
        "2000-02-29T23:59:59.999999999Z",
        "2026-01-01T09:05:03.000001Z",
        "9999-12-31T23:59:59.999999999Z",
        "+10000-01-01T00:00:00Z",
        "1969-12-31T23:59:59.999999Z",
        "0001-01-01T00:00:00Z",
        "-4713-11-24T00:00:00Z"
      })
  void writesWhatToStringWrites(String text) {
    Instant t = Instant.parse(text);
    assertThat(written(t)).isEqualTo(t.toString());
  }

  @Test
  void agreesWithToStringOnRandomInstantsOfEveryPrecision() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < 200_000; i++) {
      long seconds = random.nextLong(-10_000_000_000L, 300_000_000_000L);
      int nanos =
          switch (i % 4) {
            case 0 -> 0;
            case 1 -> random.nextInt(1000) * 1_000_000;
            case 2 -> random.nextInt(1_000_000) * 1000; // what Postgres stores: microseconds
            default -> random.nextInt(1_000_000_000);
          };
      Instant t = Instant.ofEpochSecond(seconds, nanos);
      assertThat(written(t)).as("%s", t).isEqualTo(t.toString());
    }
  }

  @Test
  void appendsToWhatIsThere() {
    StringBuilder sb = new StringBuilder("at ");
    IsoInstant.append(sb, Instant.parse("2026-11-24T14:03:07.5Z"));
    assertThat(sb).hasToString("at 2026-11-24T14:03:07.500Z");
  }
}

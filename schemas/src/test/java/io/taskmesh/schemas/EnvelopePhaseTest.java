package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class EnvelopePhaseTest {
  @Test
  void wireValuesAreTheSecondSpecs() {
    assertThat(Arrays.stream(EnvelopePhase.values()).map(EnvelopePhase::wire))
        .containsExactly(
            "pending",
            "processing",
            "retrying",
            "succeeded",
            "failed",
            "paused",
            "canceled",
            "unknown");
  }

  @ParameterizedTest
  @EnumSource(EnvelopePhase.class)
  void roundTripsThroughAnEnvelopeStatus(EnvelopePhase phase) {
    EnvelopeStatus s =
        new EnvelopeStatus(
            phase, "a", 1, 3, "2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z", null, null, null);
    String json = Json.write(s);
    assertThat(json)
        .isEqualTo(
            "{\"phase\":\""
                + phase.wire()
                + "\",\"actor\":\"a\",\"attempt\":1,\"max_attempts\":3,"
                + "\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:01Z\"}");
    assertThat(Json.read(json, EnvelopeStatus.class)).isEqualTo(s);
  }

  @Test
  void anUnknownPhaseIsNeitherInFlightNorAbsent() {
    assertThat(Json.read("{\"phase\":\"queued\"}", EnvelopeStatus.class).phase())
        .isEqualTo(EnvelopePhase.UNKNOWN);
    assertThat(Json.read("{\"phase\":null}", EnvelopeStatus.class).phase()).isNull();
    assertThat(EnvelopePhase.UNKNOWN.inFlight()).isFalse();
  }

  @Test
  void onlyPendingAndProcessingAreInFlight() {
    assertThat(Arrays.stream(EnvelopePhase.values()).filter(EnvelopePhase::inFlight))
        .containsExactly(EnvelopePhase.PENDING, EnvelopePhase.PROCESSING);
  }

  @Test
  void aNewEnvelopeIsPending() {
    EnvelopeStatus s =
        EnvelopeStatus.pending("gateway", 0, "2026-01-01T00:00:00Z", "2026-01-01T00:05:00Z");
    assertThat(Json.write(s))
        .isEqualTo(
            "{\"phase\":\"pending\",\"actor\":\"gateway\",\"attempt\":0,"
                + "\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\","
                + "\"deadline_at\":\"2026-01-01T00:05:00Z\"}");
  }
}

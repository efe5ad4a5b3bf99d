package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Route;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fan-out child ids: UUID4 in form, the same for the same batch handled again, distinct otherwise.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class ChildIdTest {
  private static final String UUID4 =
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";

  private static Envelope at(String id, List<String> prev, String curr) {
    return new Envelope(id, null, new Route(prev, curr, List.of()), null, null, Map.of());
  }

  @Test
  void aRetriedBatchGetsTheSameChildIds() {
    Envelope e = at("t1", List.of(), "fan");
    assertThat(EnvelopeProcessor.childId(e, "fan", 1))
        .matches(UUID4)
        .isEqualTo(EnvelopeProcessor.childId(at("t1", List.of(), "fan"), "fan", 1));
  }

  @Test
  void otherIndexesHopsAndEnvelopesGetOtherIds() {
    String first = EnvelopeProcessor.childId(at("t1", List.of(), "fan"), "fan", 1);
    assertThat(EnvelopeProcessor.childId(at("t1", List.of(), "fan"), "fan", 2)).isNotEqualTo(first);
    assertThat(EnvelopeProcessor.childId(at("t1", List.of("fan", "x"), "fan"), "fan", 1))
        .isNotEqualTo(first);
    assertThat(EnvelopeProcessor.childId(at("t2", List.of(), "fan"), "fan", 1)).isNotEqualTo(first);
  }
}

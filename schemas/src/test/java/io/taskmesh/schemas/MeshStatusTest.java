package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class MeshStatusTest {
  @ParameterizedTest
  @CsvSource({"pending, 0", "running, 1", "paused, 2", "succeeded, 3", "failed, 3", "canceled, 3"})
  void orderIsTheSpecs(String wire, int order) {
    assertThat(MeshStatus.of(wire).order()).isEqualTo(order);
    assertThat(MeshStatus.of(wire).isTerminal()).isEqualTo(order == 3);
  }

  @ParameterizedTest
  @EnumSource(MeshStatus.class)
  void roundTripsThroughJson(MeshStatus status) {
    String json = Json.write(new Holder(status));
    assertThat(json).isEqualTo("{\"status\":\"" + status.wire() + "\"}");
    assertThat(Json.read(json, Holder.class).status()).isEqualTo(status);
    assertThat(MeshStatus.find(status.wire())).contains(status);
  }

  @Test
  void unknownValuesAreNotStatuses() {
    assertThat(MeshStatus.find("done")).isEmpty();
    assertThat(MeshStatus.find(null)).isEmpty();
    assertThat(MeshStatus.find("unknown")).as("a task status, not an envelope one").isEmpty();
    assertThatThrownBy(() -> MeshStatus.of("done")).hasMessageContaining("unknown status 'done'");
  }

  @Test
  void listsReadAsTheWireValues() {
    assertThat(MeshStatus.ALL)
        .hasToString("[pending, running, paused, succeeded, failed, canceled]");
    assertThat(MeshStatus.NON_TERMINAL)
        .containsExactly(MeshStatus.PENDING, MeshStatus.RUNNING, MeshStatus.PAUSED);
  }

  @ParameterizedTest(name = "{0} -> {1}: {2}")
  @CsvSource({
    "pending,running,ADVANCE",
    "pending,paused,ADVANCE",
    "pending,succeeded,ADVANCE",
    "pending,canceled,ADVANCE",
    "running,paused,ADVANCE",
    "running,failed,ADVANCE",
    "paused,succeeded,ADVANCE",
    "running,pending,STALE",
    "paused,running,STALE",
    "paused,pending,STALE",
    "succeeded,failed,STALE",
    "failed,canceled,STALE",
    "canceled,succeeded,STALE",
    "succeeded,succeeded,STALE",
    "succeeded,running,STALE",
    "canceled,pending,STALE",
    "pending,pending,REFRESH",
    "running,running,REFRESH",
    "paused,paused,REFRESH",
  })
  void anIncomingStatusMovesAStoredOneOnlyUpwards(
      String stored, String incoming, MeshStatus.Move expected) {
    assertThat(MeshStatus.of(incoming).over(MeshStatus.of(stored))).isEqualTo(expected);
  }

  record Holder(MeshStatus status) {}
}

package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class TaskStatusTest {
  @Test
  void wireValuesAreTheSpecs() {
    assertThat(Arrays.stream(TaskStatus.values()).map(TaskStatus::wire))
        .containsExactly(
            "pending",
            "running",
            "succeeded",
            "failed",
            "paused",
            "canceled",
            "auth_required",
            "unknown");
  }

  @ParameterizedTest
  @EnumSource(TaskStatus.class)
  void roundTripsThroughJson(TaskStatus status) {
    String json = Json.write(new Holder(status));
    assertThat(json).isEqualTo("{\"status\":\"" + status.wire() + "\"}");
    assertThat(Json.read(json, Holder.class).status()).isEqualTo(status);
    assertThat(status).hasToString(status.wire());
  }

  @Test
  void anUnknownWireValueReadsAsUnknownAndNullStaysNull() {
    assertThat(Json.read("{\"status\":\"archived\"}", Holder.class).status())
        .isEqualTo(TaskStatus.UNKNOWN);
    assertThat(Json.read("{\"status\":null}", Holder.class).status()).isNull();
    assertThat(Json.read("{}", Holder.class).status()).isNull();
    assertThat(TaskStatus.fromWire("PAUSED"))
        .as("wire values are case-sensitive")
        .isEqualTo(TaskStatus.UNKNOWN);
  }

  @Test
  void succeededFailedAndCanceledAreFinal() {
    assertThat(Arrays.stream(TaskStatus.values()).filter(TaskStatus::isFinal))
        .containsExactlyInAnyOrder(TaskStatus.SUCCEEDED, TaskStatus.FAILED, TaskStatus.CANCELED);
    assertThat(Arrays.stream(TaskStatus.values()).filter(TaskStatus::isOutcome))
        .containsExactlyInAnyOrder(TaskStatus.SUCCEEDED, TaskStatus.FAILED);
  }

  @Test
  void aFinalReportKeepsItsBytes() {
    String json =
        "{\"id\":\"t1\",\"status\":\"paused\",\"current_actor_name\":\"x-pause\",\"metadata\":{\"a\":1}}";
    FinalReport r = Json.read(json, FinalReport.class);
    assertThat(r).isEqualTo(FinalReport.paused("t1", "x-pause", Map.of("a", 1)));
    assertThat(Json.write(r)).isEqualTo(json);
  }

  record Holder(TaskStatus status) {}
}

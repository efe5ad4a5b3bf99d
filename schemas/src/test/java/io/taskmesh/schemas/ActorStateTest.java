package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class ActorStateTest {
  @ParameterizedTest
  @CsvSource({"received, 0.1", "processing, 0.5", "completed, 1.0"})
  void weightsAreTheSpecs(String wire, double weight) {
    ActorState state = ActorState.find(wire).orElseThrow();
    assertThat(state.weight()).isEqualTo(weight);
    assertThat(state.wire()).isEqualTo(wire);
    assertThat(Progress.routeWeight(wire)).isEqualTo(weight);
  }

  @Test
  void aRouteFormReportCarriesTheWireValue() {
    ProgressReport r =
        ProgressReport.routeForm(Route.start("a", List.of("b")), ActorState.COMPLETED, null);
    assertThat(Json.write(r))
        .isEqualTo("{\"prev\":[],\"curr\":\"a\",\"next\":[\"b\"],\"status\":\"completed\"}");
    assertThat(Progress.percent(r)).isEqualTo(50.0);
  }

  @Test
  void anUnknownStateIsRejectedByName() {
    assertThat(ActorState.find("done")).isEmpty();
    assertThatThrownBy(() -> Progress.routeWeight("done"))
        .hasMessage("progress: 'status' must be received, processing or completed, not 'done'");
    assertThatThrownBy(() -> Progress.routeWeight(null)).hasMessageEndingWith("not 'null'");
  }
}

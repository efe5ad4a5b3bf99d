package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class GatewayReporterTest {
  @Test
  void theProtocolHeaderSelectsMeshApiEvents() {
    Envelope legacy = new Envelope("e1", null, Route.start("a", List.of()), null, null, Map.of());
    Envelope events =
        new Envelope(
            "e1",
            null,
            Route.start("a", List.of()),
            null,
            null,
            Map.of(Envelope.GATEWAY_PROTOCOL_HEADER, "events"));
    assertThat(GatewayReporter.speaksEvents(legacy)).isFalse();
    assertThat(GatewayReporter.speaksEvents(events)).isTrue();
  }

  @Test
  void aFinalReportBecomesAStatusEvent() throws Exception {
    Map<String, Object> ok =
        GatewayReporter.statusEvent(
            FinalReport.succeeded("e1", Json.MAPPER.readTree("{\"x\":1}"), "x-sink", null));
    assertThat(Json.tree(ok))
        .isEqualTo(
            Json.MAPPER.readTree(
                "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"x-sink\",\"result\":{\"x\":1}}}"));
    Map<String, Object> failed =
        GatewayReporter.statusEvent(FinalReport.failed("e1", "Timeout", null, null));
    assertThat(Json.write(failed))
        .contains("\"status\":\"failed\"")
        .contains("\"error\":\"Timeout\"");
  }
}

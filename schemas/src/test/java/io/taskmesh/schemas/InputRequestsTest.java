package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class InputRequestsTest {
  private static final String NAMED =
      "{\"user_name\": {\"method\": \"elicitation/create\", \"params\": {\"message\": \"Name?\"}},"
          + " \"client_roots\": {\"method\": \"roots/list\"}}";

  @Test
  void namedRequestsAreReadFromAStringOrAnObject() throws Exception {
    assertThat(InputRequests.read(NAMED).requests().size()).isEqualTo(2);
    Object asObject = Json.MAPPER.readValue(NAMED, Map.class);
    assertThat(InputRequests.read(asObject).requests()).isEqualTo(Json.MAPPER.readTree(NAMED));
  }

  @Test
  void aMethodAClientCannotBeAskedIsRefusedWithTheHandlersFix() {
    InputRequests.Read read = InputRequests.read("{\"k\": {\"method\": \"tools/call\"}}");
    assertThat(read.ok()).isFalse();
    assertThat(read.problem()).contains("x-svc-input-requests", "'k'", "elicitation/create");
  }

  @Test
  void badKeysParamsAndShapesAreRefused() {
    assertThat(InputRequests.read("not json").problem()).contains("not JSON");
    assertThat(InputRequests.read("[]").problem()).contains("non-empty object");
    assertThat(InputRequests.read("{\"a b\": {\"method\": \"roots/list\"}}").problem())
        .contains("key 'a b'");
    assertThat(InputRequests.read("{\"k\": {\"method\": \"roots/list\", \"params\": 3}}").problem())
        .contains("params must be an object");
  }

  @Test
  void aPausedReportCarriesOnlyRequestsThatReadWell() throws Exception {
    FinalReport named =
        FinalReport.paused(
            "t",
            "x-pause",
            Map.of("pause", "Name?", "input_requests", Json.MAPPER.readTree(NAMED)));
    assertThat(named.inputRequests()).isEqualTo(Json.MAPPER.readTree(NAMED));
    FinalReport questionOnly = FinalReport.paused("t", "x-pause", Map.of("pause", "Name?"));
    assertThat(questionOnly.inputRequests()).isNull();
  }
}

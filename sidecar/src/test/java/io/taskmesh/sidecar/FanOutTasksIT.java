package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fan-out children become gateway tasks before they are routed, through Kafka with a real runtime.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FanOutTasksIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  TestMesh mesh;

  @BeforeEach
  void start() {
    mesh = new TestMesh();
  }

  @AfterEach
  void stop() {
    mesh.close();
  }

  @Test
  void everyChildIsRegisteredWithItsParentAndRouteBeforeItIsRouted() {
    mesh.sidecar("fan", "testhandlers.fan3");
    mesh.send(mesh.envelope("fan-1", Map.of("k", "v"), "fan", "next"));
    List<Envelope> routed = mesh.envelopes(mesh.topic("next"), 3, WAIT);
    assertThat(routed).hasSize(3);
    List<String> childIds =
        routed.stream().map(Envelope::id).filter(id -> !id.equals("fan-1")).toList();
    assertThat(childIds).hasSize(2);

    List<GatewayRecorder.Call> registered = mesh.gateway.calls("registered");
    assertThat(registered)
        .extracting(GatewayRecorder.Call::id)
        .containsExactlyInAnyOrderElementsOf(childIds);
    for (GatewayRecorder.Call c : registered) {
      JsonNode child = c.body();
      assertThat(child.path("parent_id").asText()).isEqualTo("fan-1");
      assertThat(child.path("actors")).extracting(JsonNode::asText).containsExactly("fan", "next");
      assertThat(child.path("current").asInt()).isEqualTo(1);
      assertThat(child.path("index").asInt()).isZero(); // the gateway keeps the sidecar's id
      assertThat(child.path("payload").path("of").path("k").asText()).isEqualTo("v");
    }
  }

  @Test
  void aRefusedRegistrationRoutesNoChildAndFailsTheParent() {
    mesh.gateway.refuseRegistrations = true;
    mesh.sidecar("fan", "testhandlers.fan3");
    mesh.send(mesh.envelope("fan-2", Map.of("k", "v"), "fan", "next"));
    List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 1, WAIT);
    assertThat(sunk).hasSize(1);
    assertThat(sunk.get(0).id()).isEqualTo("fan-2");
    assertThat(sunk.get(0).status().phase()).isEqualTo(EnvelopePhase.FAILED);
    assertThat(sunk.get(0).status().reason()).isEqualTo(Reasons.CHILD_REGISTRATION_FAILED);
    // the parent's failure was committed in the same transaction as anything routed: nothing was
    assertThat(mesh.envelopes(mesh.topic("next"), 1, Duration.ofSeconds(2))).isEmpty();
    assertThat(mesh.gateway.calls("registered")).isEmpty();
  }
}

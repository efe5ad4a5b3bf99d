package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * x-pause with the real broker and real runtimes: park, paused report, restart, resume, continue to
 * x-sink.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PauseIT {
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

  private JsonNode finalOf(String id, String status) {
    Await.until(
        () ->
            mesh.gateway.calls(id, "final").stream()
                .anyMatch(c -> c.body().path("status").asText().equals(status)),
        WAIT,
        status + " report of " + id);
    return mesh.gateway.calls(id, "final").stream()
        .filter(c -> c.body().path("status").asText().equals(status))
        .findFirst()
        .orElseThrow()
        .body();
  }

  private void resume(PauseActor pause, String id, Object input) {
    mesh.send(pause.resumeTopic(), id, Json.bytes(Map.of("id", id, "input", input)));
  }

  @Test
  void handlerPausesThenResumeAfterAnXPauseRestartContinuesToTheNextActorAndSink() {
    mesh.sidecar("ask", "testhandlers.pause");
    mesh.sidecar("after", "testhandlers.echo");
    mesh.sink();
    PauseActor first = mesh.pause(CrewConfig.defaults());
    mesh.send(mesh.envelope("hitl-1", Map.of("question", "ok?"), "ask", "after"));

    JsonNode paused = finalOf("hitl-1", "paused");
    assertThat(paused.path("current_actor_name").asText()).isEqualTo("x-pause");
    assertThat(paused.path("metadata").path("paused_by").asText()).isEqualTo("ask");
    assertThat(paused.path("metadata").path("resume_topic").asText())
        .isEqualTo(first.resumeTopic());
    assertThat(paused.path("metadata").path("route").path("curr").asText()).isEqualTo("after");
    List<Envelope> parked = mesh.envelopes(first.parkedTopic(), 1, WAIT);
    assertThat(parked).hasSize(1);
    assertThat(parked.get(0).header("x-svc-pause")).isEqualTo("true");
    assertThat(parked.get(0).status().phase()).isEqualTo(EnvelopePhase.PAUSED);
    assertThat(mesh.read(mesh.topic("after"), 0, Duration.ofMillis(300))).isEmpty();

    first.close(); // x-pause restarts between the pause and the resume; the resume waits in its
    // topic
    resume(first, "hitl-1", Map.of("answer", "yes"));
    PauseActor second = mesh.pause(CrewConfig.defaults());

    JsonNode done = finalOf("hitl-1", "succeeded");
    assertThat(done.path("result").path("question").asText()).isEqualTo("ok?");
    assertThat(done.path("result").path("input").path("answer").asText()).isEqualTo("yes");
    Envelope sunk = mesh.envelopes(mesh.topic("x-sink"), 1, WAIT).get(0);
    assertThat(sunk.route()).isEqualTo(new Route(List.of("ask", "after"), "", List.of()));
    assertThat(sunk.headers()).doesNotContainKey("x-svc-pause");
    // the parked record is gone (tombstone): resuming again is refused
    List<ConsumerRecord<String, byte[]>> parkedLog = mesh.read(second.parkedTopic(), 2, WAIT);
    assertThat(parkedLog).extracting(ConsumerRecord::value).last().isNull();
  }

  @Test
  void routeThroughXPauseResumesToTheNextActorAndUnknownOrRepeatedResumesAreDeadLettered() {
    mesh.sidecar("a", "testhandlers.echo");
    mesh.sidecar("b", "testhandlers.echo");
    mesh.sink();
    PauseActor pause = mesh.pause(CrewConfig.defaults().withResumeWait(Duration.ofMillis(300)));
    mesh.send(mesh.envelope("via-1", "text", "a", "x-pause", "b"));
    mesh.send(mesh.envelope("end-1", Map.of("k", 1), "x-pause"));

    JsonNode paused = finalOf("via-1", "paused");
    assertThat(paused.path("metadata").path("paused_by").asText()).isEqualTo("x-pause");
    finalOf("end-1", "paused");
    resume(pause, "via-1", "approved");
    resume(pause, "end-1", List.of(1, 2));
    resume(pause, "never-paused", 1);
    resume(pause, "via-1", "again");
    mesh.send(pause.resumeTopic(), "junk", "not json".getBytes(StandardCharsets.UTF_8));

    JsonNode via = finalOf("via-1", "succeeded");
    assertThat(via.path("result"))
        .isEqualTo(Json.tree(Map.of("value", "text", "input", "approved")));
    JsonNode end = finalOf("end-1", "succeeded");
    assertThat(end.path("result").path("input")).isEqualTo(Json.tree(List.of(1, 2)));
    List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 2, WAIT);
    assertThat(sunk)
        .extracting(e -> e.id() + ":" + e.route().prev())
        .containsExactlyInAnyOrder("via-1:[a, x-pause, b]", "end-1:[x-pause]");

    List<ConsumerRecord<String, byte[]>> dlq = mesh.read(pause.resumeTopic() + ".dlq", 3, WAIT);
    assertThat(dlq)
        .extracting(
            r ->
                r.key()
                    + ":"
                    + new String(
                        r.headers().lastHeader(PauseActor.DLQ_REASON).value(),
                        StandardCharsets.UTF_8))
        .containsExactly(
            "never-paused:" + PauseActor.UNKNOWN_TASK,
            "via-1:" + PauseActor.UNKNOWN_TASK,
            "junk:" + PauseActor.INVALID_RESUME);
  }
}

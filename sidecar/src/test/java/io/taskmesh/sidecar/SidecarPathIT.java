package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One envelope through a 2-actor route (upper -> reverse of the example handlers) to x-sink and
 * x-sump.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SidecarPathIT {
  static TestMesh mesh;

  @BeforeAll
  static void start() {
    mesh = new TestMesh();
  }

  @AfterAll
  static void stop() {
    mesh.close();
  }

  @Test
  void oneEnvelopeThroughTwoActorsReachesSinkAndSump() {
    var examples = TestMesh.repoRoot().resolve("runtime/examples");
    RuntimeProcess upper = mesh.runtime(examples, "text.upper");
    RuntimeProcess reverse = mesh.runtime(examples, "text.reverse");
    ExitHook noExit =
        s -> {
          throw new AssertionError("exit " + s);
        };
    mesh.sidecar(upper, mesh.config("upper", upper.socketDir()), noExit);
    mesh.sidecar(reverse, mesh.config("reverse", reverse.socketDir()), noExit);
    mesh.sink();
    SumpActor sump = mesh.sump();

    long t0 = System.nanoTime();
    mesh.send(mesh.envelope("task-1", Map.of("text", "hello"), "upper", "reverse"));

    Await.until(
        () -> !mesh.gateway.calls("task-1", "final").isEmpty(),
        Duration.ofSeconds(60),
        "final report");
    System.out.println("final after " + (System.nanoTime() - t0) / 1_000_000 + " ms");
    JsonNode fin = mesh.gateway.calls("task-1", "final").get(0).body();
    assertThat(fin.path("status").asText()).isEqualTo("succeeded");
    assertThat(fin.path("id").asText()).isEqualTo("task-1");
    assertThat(fin.path("result").path("text").asText()).isEqualTo("OLLEH");
    assertThat(fin.path("current_actor_name").asText()).isEqualTo("x-sink");

    // no wait: each actor's reports reach the gateway before its output moves on, so all six are
    // in before x-sink's final report (a gateway drops a progress report that arrives after it)
    List<String> progress =
        mesh.gateway.calls("task-1", "progress").stream()
            .map(
                c ->
                    c.body().path("curr").asText()
                        + ":"
                        + c.body().path("status").asText()
                        + ":"
                        + c.body().path("prev")
                        + ":"
                        + c.body().path("next"))
            .toList();
    assertThat(progress)
        .containsExactly(
            "upper:received:[]:[\"reverse\"]",
            "upper:processing:[]:[\"reverse\"]",
            "upper:completed:[]:[\"reverse\"]",
            "reverse:received:[\"upper\"]:[]",
            "reverse:processing:[\"upper\"]:[]",
            "reverse:completed:[\"upper\"]:[]");

    List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 1, Duration.ofSeconds(10));
    assertThat(sunk).hasSize(1);
    assertThat(sunk.get(0).status().phase()).isEqualTo(EnvelopePhase.SUCCEEDED);
    assertThat(sunk.get(0).route().prev()).containsExactly("upper", "reverse");
    assertThat(sunk.get(0).route().curr()).isEmpty();
    Await.until(() -> sump.succeeded() == 1, Duration.ofSeconds(20), "x-sump counted it");
    assertThat(sump.failed()).isZero();
  }
}

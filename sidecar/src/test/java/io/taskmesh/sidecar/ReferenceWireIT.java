package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 21 item 1: our sidecar behind a process that speaks the reference runtime's wire format
 * exactly ({@code src/test/resources/reference/reference_wire_runtime.py}: its socket name, its
 * HTTP/1.0 server, its {@code upstream}/{@code downstream}/{@code error}/{@code done} events with
 * {@code done} after an {@code error}). Fan-out, FLY, a route change and an empty generator each
 * end as on our own runtime; none is taken for a crash.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ReferenceWireIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final String REFERENCE_SOCKET = "asya-runtime.sock";
  TestMesh mesh;
  Process reference;
  @TempDir Path dir;

  @BeforeEach
  void start() throws IOException {
    mesh = new TestMesh();
    Path script =
        TestMesh.repoRoot()
            .resolve("sidecar/src/test/resources/reference/reference_wire_runtime.py");
    reference =
        new ProcessBuilder("python3", script.toString(), dir.resolve("sock").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("reference.log").toFile())
            .start();
  }

  @AfterEach
  void stop() throws InterruptedException {
    mesh.close();
    reference.destroy();
    reference.waitFor(5, TimeUnit.SECONDS);
  }

  @Test
  void fanOutFlyRouteChangeEmptyGeneratorAndErrorAfterAFrame() {
    Path socketDir = dir.resolve("sock");
    // two attempts: a processing error is retried once, a crash would be counted instead
    SidecarConfig cfg =
        mesh.config("ref", socketDir).withResiliency(2, Duration.ofMillis(10), List.of());
    mesh.sidecar(
        socketDir.resolve(REFERENCE_SOCKET),
        cfg,
        s -> {
          throw new AssertionError("sidecar exit " + s);
        });
    mesh.sink();

    mesh.send(mesh.envelope("plain", Map.of("op", "plain"), "ref"));
    mesh.send(mesh.envelope("fan", Map.of("op", "fanout"), "ref"));
    mesh.send(mesh.envelope("fly", Map.of("op", "fly", "words", List.of("w1", "w2")), "ref"));
    mesh.send(
        mesh.envelope(
            "reroute", Map.of("op", "reroute", "next", List.of("r1", "r2")), "ref", "old"));
    mesh.send(mesh.envelope("empty", Map.of("op", "empty"), "ref"));
    mesh.send(mesh.envelope("err", Map.of("op", "error_after_frame"), "ref"));

    Envelope toR1 = mesh.envelopes(mesh.topic("r1"), 1, WAIT).get(0);
    assertThat(toR1.id()).isEqualTo("reroute");
    assertThat(toR1.payload().path("rerouted").asBoolean()).isTrue();
    assertThat(toR1.route().prev()).containsExactly("ref");
    assertThat(toR1.route().next()).containsExactly("r2");

    // plain, fan + 2 children, fly, empty, err
    List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 7, WAIT);
    Map<String, Envelope> byId =
        sunk.stream()
            .filter(e -> e.parentId() == null)
            .collect(Collectors.toMap(Envelope::id, Function.identity()));
    assertThat(byId.get("plain").payload().path("plain").asBoolean()).isTrue();
    assertThat(byId.get("fan").payload().path("child").asInt()).isZero();
    assertThat(
            sunk.stream()
                .filter(e -> "fan".equals(e.parentId()))
                .map(e -> e.payload().path("child").asInt()))
        .containsExactlyInAnyOrder(1, 2);
    assertThat(byId.get("fly").payload().path("said").asText()).isEqualTo("w1 w2");
    assertThat(byId.get("empty").status().reason()).isEqualTo(Reasons.EMPTY_RESPONSE);
    // the error event wins over the frame before it and the done after it; retried, not a crash
    assertThat(byId.get("err").status().error()).isEqualTo("RuntimeError: failed after a frame");
    assertThat(byId.get("err").status().attempt()).isEqualTo(2);
    assertThat(sunk)
        .noneMatch(e -> e.status() != null && Reasons.RUNTIME_CRASHED.equals(e.status().reason()));

    Await.until(
        () -> mesh.gateway.calls("fly", "fly").size() == 2, WAIT, "two FLY events at the gateway");
    assertThat(mesh.gateway.calls("fly", "fly"))
        .extracting(c -> c.body().path("text").asText())
        .containsExactly("w1", "w2");
  }
}

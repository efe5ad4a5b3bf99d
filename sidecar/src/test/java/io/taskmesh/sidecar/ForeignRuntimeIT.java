package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Interoperability (issue 4, item 6): the sidecar against a runtime that is not ours ({@code
 * src/test/resources/foreign/foreign_runtime.py}, written from the wire format only), plain JSON
 * frames (Content-Length, chunked, close-delimited) and the streaming form.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ForeignRuntimeIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  TestMesh mesh;
  Process foreign;
  @TempDir Path dir;

  @BeforeEach
  void start() {
    mesh = new TestMesh();
  }

  @AfterEach
  void stop() throws InterruptedException {
    mesh.close();
    if (foreign != null) {
      foreign.destroy();
      foreign.waitFor(5, TimeUnit.SECONDS);
    }
  }

  private Process startForeign(Path socketDir) throws IOException {
    Path script =
        TestMesh.repoRoot().resolve("sidecar/src/test/resources/foreign/foreign_runtime.py");
    return new ProcessBuilder("python3", script.toString(), socketDir.toString())
        .redirectErrorStream(true)
        .redirectOutput(socketDir.resolveSibling("foreign.log").toFile())
        .start();
  }

  @Test
  void sidecarStartedFirstWaitsForTheReadyFileThenSpeaksOnlyTheWireFormat() throws Exception {
    Path socketDir = dir.resolve("sock");
    SidecarConfig cfg =
        mesh.config("f", socketDir).withResiliency(2, Duration.ofMillis(10), List.of());
    // the sidecar starts before the runtime exists and polls for its ready file
    CompletableFuture<Sidecar> sidecar =
        CompletableFuture.supplyAsync(
            () ->
                mesh.sidecar(
                    socketDir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME),
                    cfg,
                    s -> {
                      throw new AssertionError("exit " + s);
                    }));
    foreign = startForeign(socketDir);
    sidecar.get(60, TimeUnit.SECONDS);
    mesh.sink();

    mesh.send(mesh.envelope("up", Map.of("op", "upper", "text", "abc"), "f", "g"));
    mesh.send(mesh.envelope("chunk", Map.of("op", "chunked"), "f"));
    mesh.send(mesh.envelope("close", Map.of("op", "close"), "f"));
    mesh.send(mesh.envelope("fan", Map.of("op", "fanout"), "f"));
    mesh.send(mesh.envelope("none", Map.of("op", "none"), "f"));
    mesh.send(mesh.envelope("fail", Map.of("op", "fail"), "f"));
    mesh.send(mesh.envelope("bad", Map.of("op", "bad_request"), "f"));

    Envelope toG = mesh.envelopes(mesh.topic("g"), 1, WAIT).get(0);
    assertThat(toG.payload().path("text").asText()).isEqualTo("ABC");
    assertThat(toG.route().prev()).containsExactly("f");
    List<Envelope> sunk = mesh.envelopes(mesh.topic("x-sink"), 7, WAIT);
    Map<String, Envelope> byId =
        sunk.stream()
            .filter(e -> e.parentId() == null)
            .collect(Collectors.toMap(Envelope::id, Function.identity()));
    assertThat(byId.get("chunk").payload().path("chunked").asBoolean()).isTrue();
    assertThat(byId.get("close").payload().path("closed").asBoolean()).isTrue();
    assertThat(byId.get("fan").payload().path("n").asInt()).isZero();
    assertThat(sunk.stream().filter(e -> "fan".equals(e.parentId())).toList()).hasSize(1);
    assertThat(byId.get("none").status().reason()).isEqualTo(Reasons.EMPTY_RESPONSE);
    assertThat(byId.get("fail").status().error()).isEqualTo("ForeignError: foreign failure");
    assertThat(byId.get("fail").status().attempt()).isEqualTo(2);
    assertThat(byId.get("bad").status().reason()).isEqualTo(Reasons.MSG_PARSING_ERROR);
    assertThat(byId.get("bad").status().attempt()).isEqualTo(1);

    // streaming form: FLY events reach the gateway while the runtime still holds the stream open
    Path release = dir.resolve("release");
    mesh.send(
        mesh.envelope(
            "stream",
            Map.of(
                "op", "stream", "words", List.of("w1", "w2"), "release_file", release.toString()),
            "f"));
    Await.until(
        () -> mesh.gateway.calls("stream", "fly").size() == 2,
        WAIT,
        "FLY before the end of the stream");
    assertThat(mesh.gateway.calls("stream", "final")).isEmpty();
    Files.writeString(release, "go");
    Await.until(() -> !mesh.gateway.calls("stream", "final").isEmpty(), WAIT, "stream final");
    assertThat(
            mesh.gateway
                .calls("stream", "final")
                .get(0)
                .body()
                .path("result")
                .path("released")
                .asBoolean())
        .isTrue();
    assertThat(mesh.gateway.calls("stream", "fly"))
        .extracting(c -> c.body().path("text").asText())
        .containsExactly("w1", "w2");

    // one connection per message: no connection ever carried a second request (0 = readiness
    // checks)
    List<String> perConnection = Files.readAllLines(socketDir.resolve("connections.log"));
    assertThat(perConnection).allMatch(n -> n.equals("0") || n.equals("1"));
    assertThat(perConnection.stream().filter("1"::equals).count())
        .isEqualTo(9); // 8 envelopes, "fail" twice
  }

  @Test
  void aListeningSocketWithoutTheReadyFileIsNotReady() throws IOException {
    Path socket = dir.resolve(SidecarConfig.DEFAULT_SOCKET_NAME);
    try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        RuntimeClient client = new RuntimeClient(socket)) {
      server.bind(UnixDomainSocketAddress.of(socket));
      assertThat(client.canConnect()).isTrue();
      assertThatThrownBy(() -> client.awaitReady(Duration.ofMillis(1200)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(RuntimeClient.READY_FILE);
      Files.writeString(dir.resolve(RuntimeClient.READY_FILE), "1");
      client.awaitReady(Duration.ofSeconds(5));
    }
  }
}

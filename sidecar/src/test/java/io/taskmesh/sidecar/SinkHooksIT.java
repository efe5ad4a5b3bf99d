package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * x-sink hooks against real JDK HTTP servers: delivered, retried after 503s, and a dead hook that
 * blocks nothing.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SinkHooksIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  TestMesh mesh;
  HttpServer receiver;
  final List<String> good = new CopyOnWriteArrayList<>();
  final List<String> flakyCalls = new CopyOnWriteArrayList<>();
  final List<JsonNode> bodies = new CopyOnWriteArrayList<>();
  final AtomicInteger flaky503 = new AtomicInteger(2);

  @BeforeEach
  void start() throws IOException {
    mesh = new TestMesh();
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/good",
        ex -> {
          bodies.add(Json.read(ex.getRequestBody().readAllBytes(), JsonNode.class));
          good.add(
              ex.getRequestHeaders().getFirst("X-Svc-Task-Id")
                  + ":"
                  + ex.getRequestHeaders().getFirst("X-Svc-Status"));
          ex.sendResponseHeaders(204, -1);
          ex.close();
        });
    receiver.createContext(
        "/flaky",
        ex -> {
          ex.getRequestBody().readAllBytes();
          flakyCalls.add(ex.getRequestHeaders().getFirst("X-Svc-Task-Id"));
          ex.sendResponseHeaders(flaky503.getAndDecrement() > 0 ? 503 : 200, -1);
          ex.close();
        });
    receiver.setExecutor(Executors.newFixedThreadPool(2));
    receiver.start();
  }

  @AfterEach
  void stop() {
    mesh.close();
    receiver.stop(0);
  }

  private static int deadPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort(); // closed again: connections are refused
    }
  }

  @Test
  void everyFinalEnvelopeIsPostedToEveryHookWithRetriesAndADeadHookBlocksNothing()
      throws IOException {
    String base = "http://127.0.0.1:" + receiver.getAddress().getPort();
    CrewConfig crew =
        CrewConfig.defaults()
            .withHooks(
                List.of(
                    URI.create(base + "/good"),
                    URI.create(base + "/flaky"),
                    URI.create("http://127.0.0.1:" + deadPort() + "/dead")),
                3,
                Duration.ofMillis(50));
    SinkActor sink = mesh.sink(crew);
    Envelope ok =
        new Envelope(
            "h-ok",
            null,
            new Route(List.of("a"), "", List.of()),
            null,
            Json.tree(Map.of("r", 1)),
            Map.of(Envelope.GATEWAY_URL_HEADER, mesh.gateway.url()));
    Envelope bad =
        new Envelope(
            "h-bad",
            null,
            new Route(List.of(), "a", List.of()),
            new EnvelopeStatus(
                EnvelopePhase.FAILED,
                "a",
                1,
                1,
                null,
                null,
                null,
                Reasons.PROCESSING_ERROR,
                "ValueError: x"),
            Json.tree(Map.of()),
            Map.of(Envelope.GATEWAY_URL_HEADER, mesh.gateway.url()));
    mesh.send(mesh.topic("x-sink"), ok.id(), Json.bytes(ok));
    mesh.send(mesh.topic("x-sink"), bad.id(), Json.bytes(bad));

    // final reports and the hand-over to x-sump do not wait for the hooks (the dead one retries
    // meanwhile)
    Await.until(() -> mesh.gateway.calls("final").size() == 2, WAIT, "both final reports");
    assertThat(mesh.envelopes(mesh.topic("x-sump"), 2, WAIT))
        .extracting(Envelope::id)
        .containsExactly("h-ok", "h-bad");

    Await.until(() -> good.size() == 2, WAIT, "good hook got both");
    assertThat(good)
        .containsExactlyInAnyOrder("h-ok:succeeded", "h-bad:failed"); // calls run in parallel
    JsonNode okBody =
        bodies.stream().filter(b -> b.path("id").asText().equals("h-ok")).findFirst().orElseThrow();
    JsonNode badBody =
        bodies.stream()
            .filter(b -> b.path("id").asText().equals("h-bad"))
            .findFirst()
            .orElseThrow();
    assertThat(okBody.path("payload").path("r").asInt()).isEqualTo(1);
    assertThat(badBody.path("status").path("error").asText()).isEqualTo("ValueError: x");
    // flaky: 503, 503, then 200 -> 2 deliveries need 4 calls; dead: 3 calls each, then given up
    Await.until(
        () -> sink.hooksDelivered() == 4 && sink.hooksFailed() == 2, WAIT, "hook outcome counts");
    assertThat(flakyCalls).hasSize(4);
  }
}

package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.servicekit.StartupRetry;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * mesh-api (a child JVM running {@link Main}) started before its broker: it retries with one WARN
 * line each and serves once the broker starts; with no broker at all it exits 1 after
 * SVC_STARTUP_RETRY_TIMEOUT with one line naming the broker and the variable.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MeshStartupRetryIT {
  @TempDir Path dir;

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private Map<String, String> env(int brokerPort, String retryFor) {
    return Map.of(
        "CONNECTOR_SOCKET",
        dir.resolve("kv.sock").toString(),
        "KAFKA_BOOTSTRAP_SERVERS",
        "127.0.0.1:" + brokerPort,
        "SVC_MESH_API_BIND_HOST",
        "127.0.0.1",
        "SVC_MESH_API_PORT",
        "0",
        "SVC_MESH_API_INTERNAL_PORT",
        "0",
        "SVC_NAMESPACE",
        "retry",
        StartupRetry.VAR,
        retryFor);
  }

  @Test
  void meshApiStartedBeforeItsBrokerServesOnceTheBrokerStarts() throws Exception {
    int port = freePort();
    try (ChildJvm mesh =
        ChildJvm.start(Main.class.getName(), env(port, "120s"), dir.resolve("mesh.log"))) {
      String retry = mesh.awaitLine(l -> l.contains("not reachable yet"), 60, TimeUnit.SECONDS);
      assertThat(retry).contains("Kafka at 127.0.0.1:" + port).contains(StartupRetry.VAR);
      try (LocalKafka broker = LocalKafka.start(dir.resolve("kafka"), port)) {
        String up =
            mesh.awaitLine(l -> l.startsWith("mesh-api: http://"), 150, TimeUnit.SECONDS)
                .substring("mesh-api: ".length());
        HttpResponse<String> health =
            HttpClient.newHttpClient()
                .send(
                    HttpRequest.newBuilder(URI.create(up + "/health"))
                        .timeout(Duration.ofSeconds(10))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(mesh.terminate(30)).isTrue();
      }
      assertThat(mesh.lines()).noneMatch(l -> l.startsWith("\tat "));
    }
  }

  @Test
  void withNoBrokerItGivesUpAfterTheLimitWithOneLine() throws Exception {
    int port = freePort();
    try (ChildJvm mesh =
        ChildJvm.start(Main.class.getName(), env(port, "2s"), dir.resolve("mesh.log"))) {
      Await.until(() -> !mesh.isAlive(), Duration.ofSeconds(90), "mesh-api gives up");
      assertThat(mesh.exitValue()).isEqualTo(1);
      assertThat(mesh.lines())
          .noneMatch(l -> l.startsWith("\tat "))
          .anyMatch(
              l ->
                  l.startsWith("mesh-api: cannot start: Kafka at 127.0.0.1:" + port)
                      && l.contains("still unreachable after 2 s")
                      && l.endsWith("set SVC_STARTUP_RETRY_TIMEOUT to wait longer"));
    }
  }
}

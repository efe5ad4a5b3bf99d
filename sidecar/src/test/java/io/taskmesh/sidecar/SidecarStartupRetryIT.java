package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.StartupRetry;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sidecar process ({@link Main}, here the crew actor x-sump, whose start needs only Kafka)
 * started before its broker: its Kafka admin retries with one WARN line each, and the actor creates
 * its topics and runs once the broker starts; with no broker at all it exits 1 after
 * SVC_STARTUP_RETRY_TIMEOUT with one line naming the broker and the variable.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SidecarStartupRetryIT {
  @TempDir Path dir;

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static Map<String, String> env(int brokerPort, String retryFor) {
    return Map.of(
        "KAFKA_BOOTSTRAP_SERVERS",
        "127.0.0.1:" + brokerPort,
        "SVC_NAMESPACE",
        "retry",
        "SVC_ACTOR_NAME",
        Topics.SUMP,
        StartupRetry.VAR,
        retryFor);
  }

  @Test
  void anActorStartedBeforeItsBrokerRunsOnceTheBrokerStarts() throws Exception {
    int port = freePort();
    try (ChildJvm sump =
        ChildJvm.start(Main.class.getName(), env(port, "120s"), dir.resolve("sump.log"))) {
      String retry = sump.awaitLine(l -> l.contains("not reachable yet"), 60, TimeUnit.SECONDS);
      assertThat(retry).contains("Kafka at 127.0.0.1:" + port).contains(StartupRetry.VAR);
      try (LocalKafka broker = LocalKafka.start(dir.resolve("kafka"), port)) {
        sump.awaitLine(
            l -> l.startsWith("sidecar: " + Topics.SUMP + " ready on "), 150, TimeUnit.SECONDS);
        try (Admin admin =
            Admin.create(
                Map.<String, Object>of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
          Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
          assertThat(topics).contains(Topics.actorQueue("retry", Topics.SUMP));
        }
        assertThat(sump.terminate(30)).isTrue();
      }
      assertThat(sump.lines()).noneMatch(l -> l.startsWith("\tat "));
    }
  }

  @Test
  void withNoBrokerItGivesUpAfterTheLimitWithOneLine() throws Exception {
    int port = freePort();
    try (ChildJvm sump =
        ChildJvm.start(Main.class.getName(), env(port, "2s"), dir.resolve("sump.log"))) {
      Await.until(() -> !sump.isAlive(), Duration.ofSeconds(90), "the sidecar gives up");
      assertThat(sump.exitValue()).isEqualTo(1);
      assertThat(sump.lines())
          .noneMatch(l -> l.startsWith("\tat "))
          .anyMatch(
              l ->
                  l.startsWith("sidecar: cannot start: Kafka at 127.0.0.1:" + port)
                      && l.contains("still unreachable after 2 s")
                      && l.endsWith("set SVC_STARTUP_RETRY_TIMEOUT to wait longer"));
    }
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.servicekit.StartupRetry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway (a child JVM running {@link Main}) started before its broker: it retries with one WARN
 * line each and comes up once the broker starts; with no broker at all it exits 1 after
 * SVC_STARTUP_RETRY_TIMEOUT with one line naming the broker and the variable.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GatewayStartupRetryIT {
  @TempDir Path dir;

  private Map<String, String> env(int brokerPort, String retryFor) throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: one, entrypoint: first, mcp: {}}\n");
    String prefix = "retry-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", "127.0.0.1:" + brokerPort);
    env.put("SVC_PORT", "0");
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_STATE_DIR", dir.resolve("state").toString());
    env.put("SVC_STREAMS_APPLICATION_ID", prefix + "-app");
    env.put("SVC_NAMESPACE", prefix);
    env.put(StartupRetry.VAR, retryFor);
    return env;
  }

  @Test
  void aGatewayStartedBeforeItsBrokerComesUpOnceTheBrokerStarts() throws Exception {
    int port = TaskHttp.freePort();
    try (ChildJvm gateway =
        ChildJvm.start(Main.class.getName(), env(port, "120s"), dir.resolve("gateway.log"))) {
      String retry = gateway.awaitLine(l -> l.contains("not reachable yet"), 60, TimeUnit.SECONDS);
      assertThat(retry).contains("Kafka at 127.0.0.1:" + port).contains(StartupRetry.VAR);
      try (LocalKafka broker = LocalKafka.start(dir.resolve("kafka"), port)) {
        String up =
            gateway.awaitLine(
                l -> l.startsWith("gateway (testing): http://"), 150, TimeUnit.SECONDS);
        String base = up.substring(up.indexOf("http://"));
        assertThat(TaskHttp.get(base + "/health").statusCode()).isEqualTo(200);
        // stopped while its broker still runs: a clean close, not one that waits on a gone broker
        assertThat(gateway.terminate(30)).isTrue();
      }
      assertThat(gateway.lines()).noneMatch(l -> l.startsWith("\tat "));
    }
  }

  @Test
  void aGatewayWithOAuthStartedBeforeItsDatabaseComesUpOnceTheDatabaseStarts() throws Exception {
    int pgPort = TaskHttp.freePort();
    int port = TaskHttp.freePort();
    Map<String, String> env = env(0, "120s");
    env.put("KAFKA_BOOTSTRAP_SERVERS", LocalKafka.shared().bootstrapServers());
    env.put("SVC_PORT", Integer.toString(port));
    env.put("SVC_DATABASE_URL", "postgresql://postgres@127.0.0.1:" + pgPort + "/postgres");
    env.put("SVC_MCP_OAUTH_ENABLED", "true");
    env.put("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:" + port);
    env.put("SVC_MCP_OAUTH_SECRET", "0123456789abcdef0123456789abcdef-startup-retry");
    try (ChildJvm gateway =
        ChildJvm.start(Main.class.getName(), env, dir.resolve("gateway-oauth.log"))) {
      String retry =
          gateway.awaitLine(
              l -> l.contains("Postgres (OAuth) not reachable yet"), 60, TimeUnit.SECONDS);
      assertThat(retry).contains(StartupRetry.VAR);
      try (LocalPostgres pg = LocalPostgres.start(dir.resolve("pg"), pgPort)) {
        String up =
            gateway.awaitLine(
                l -> l.startsWith("gateway (testing): http://"), 150, TimeUnit.SECONDS);
        assertThat(TaskHttp.get(up.substring(up.indexOf("http://")) + "/health").statusCode())
            .isEqualTo(200);
        assertThat(gateway.terminate(30)).isTrue();
      }
      assertThat(gateway.lines()).noneMatch(l -> l.startsWith("\tat "));
    }
  }

  @Test
  void withNoBrokerItGivesUpAfterTheLimitWithOneLine() throws Exception {
    int port = TaskHttp.freePort();
    try (ChildJvm gateway =
        ChildJvm.start(Main.class.getName(), env(port, "2s"), dir.resolve("gateway.log"))) {
      Await.until(() -> !gateway.isAlive(), Duration.ofSeconds(90), "the gateway gives up");
      assertThat(gateway.exitValue()).isEqualTo(1);
      assertThat(gateway.lines())
          .noneMatch(l -> l.startsWith("\tat "))
          .anyMatch(
              l ->
                  l.startsWith("gateway: cannot start: Kafka at 127.0.0.1:" + port)
                      && l.contains("still unreachable after 2 s")
                      && l.endsWith("set SVC_STARTUP_RETRY_TIMEOUT to wait longer"));
    }
  }
}

package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.servicekit.StartupRetry;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Start-up against a Postgres that does not accept connections yet: the kv-connector retries
 * (SVC_STARTUP_RETRY_TIMEOUT) and starts once Postgres is up, instead of giving up after its 1 s
 * pool timeout; with no Postgres at all it gives up with one line naming the variable.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvStartupRetryIT {

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  private static KvConfig config(Path dir, int port, String retryFor) {
    return KvConfig.fromEnv(
        Map.of(
            "CONNECTOR_SOCKET",
            dir.resolve("kv.sock").toString(),
            "STATE_PROXY_PG_URL",
            "postgres://postgres@127.0.0.1:" + port + "/postgres",
            StartupRetry.VAR,
            retryFor));
  }

  @Test
  void theConnectorStartedBeforePostgresAcceptsStartsOncePostgresIsUp() throws Exception {
    Path dir = Files.createTempDirectory("kv-startup");
    int port = freePort();
    KvConfig config = config(dir, port, "90s");
    assertThat(config.startupRetryTimeout()).isEqualTo(Duration.ofSeconds(90));
    try (KvStore store = new KvStore(config)) {
      StartupRetry retry = KvStore.startupRetry(config.startupRetryTimeout());
      CompletableFuture<Void> schema =
          CompletableFuture.runAsync(
              () -> {
                try {
                  store.ensureSchema(retry);
                } catch (InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      Await.until(() -> retry.attempts() >= 2, Duration.ofSeconds(30), "a retry before Postgres");
      assertThat(schema).isNotDone();

      try (LocalPostgres pg = LocalPostgres.start(dir.resolve("pg"), port)) {
        schema.get(60, TimeUnit.SECONDS);
        try (KvApp app = new KvApp(config, store).start();
            UnixHttp http = new UnixHttp(config.socket())) {
          assertThat(
                  http.send("PUT", "/keys/started", "{\"after\":\"retries\"}", Map.of()).status())
              .isEqualTo(201);
          assertThat(http.send("GET", "/keys/started", null, Map.of()).body())
              .contains("\"retries\"");
        }
      }
    }
  }

  @Test
  void withNoPostgresItGivesUpAfterTheLimitNamingTheVariable() throws Exception {
    Path dir = Files.createTempDirectory("kv-startup");
    KvConfig config = config(dir, freePort(), "1s");
    try (KvStore store = new KvStore(config)) {
      assertThatThrownBy(
              () -> store.ensureSchema(KvStore.startupRetry(config.startupRetryTimeout())))
          .isInstanceOf(StartupRetry.GaveUp.class)
          .hasMessageStartingWith("Postgres still unreachable after 1 s")
          .hasMessageEndingWith("set SVC_STARTUP_RETRY_TIMEOUT to wait longer");
    }
  }
}

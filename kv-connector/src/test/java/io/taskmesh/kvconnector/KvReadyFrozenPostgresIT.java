package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.servicekit.ops.JdbcProbe;
import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /ready} while Postgres is frozen (SIGSTOP to the postmaster and its backends: the kernel
 * still accepts connections, nothing answers): it answers 503 naming the database checks, both the
 * kv-connector's pooled one and the gateway's per-request one, instead of hanging; after SIGCONT it
 * is ready again.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvReadyFrozenPostgresIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void readyAnswers503NamingTheDatabaseChecksWhilePostgresIsFrozenAndRecoversAfter()
      throws Exception {
    Path dir = Files.createTempDirectory("kv-frozen");
    try (LocalPostgres pg = LocalPostgres.start(dir.resolve("pg"), 0)) {
      KvConfig config =
          KvConfig.fromEnv(
              Map.of(
                  "CONNECTOR_SOCKET", dir.resolve("kv.sock").toString(),
                  "STATE_PROXY_PG_URL", pg.jdbcUrl()));
      try (KvStore store = new KvStore(config)) {
        store.ensureSchema();
        Readiness readiness =
            new Readiness()
                .add("database", store.readinessProbe(Duration.ofSeconds(2)))
                .add("database_url", new JdbcProbe(pg.jdbcUrl(), Duration.ofSeconds(2)));
        try (OpsServer ops = OpsServer.start("127.0.0.1", 0, readiness)) {
          URI ready = URI.create("http://127.0.0.1:" + ops.port() + "/ready");
          assertThat(get(ready).statusCode()).isEqualTo(200);

          pg.freeze();
          try {
            HttpResponse<String> frozen = get(ready);
            assertThat(frozen.statusCode()).isEqualTo(503);
            assertThat(frozen.body())
                .contains("\"status\":\"not_ready\"")
                .contains("\"database\":{\"ok\":false,\"problem\":\"")
                .contains("\"database_url\":{\"ok\":false,\"problem\":\"")
                .doesNotContain("jdbc:")
                .doesNotContain("Exception");
            // asked again while the first probes still hang: answers again, no pile-up
            assertThat(get(ready).statusCode()).isEqualTo(503);
          } finally {
            pg.thaw();
          }
          Await.until(
              () -> get(ready).statusCode() == 200, Duration.ofSeconds(60), "ready after SIGCONT");
        }
      }
    }
  }

  /** With a client timeout far above the bound, so a hanging /ready fails here, not in JUnit. */
  private static HttpResponse<String> get(URI uri) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Closing;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.devkit.SseReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * FLY at the HTTP level across two gateway replicas that share one broker and one Postgres, as a
 * deployment has them (A in {@code api} mode for clients, B in {@code mesh} mode for sidecars): an
 * event posted to {@code /mesh/{id}/fly} on replica B reaches an SSE client of {@code /stream/{id}}
 * on replica A (over NOTIFY/LISTEN), also after Postgres is stopped and restarted under the
 * replicas (they keep serving; the LISTEN connections come back by themselves).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FlyReplicasIT {
  @TempDir static Path dir;
  private static LocalPostgres pg; // private: this test restarts it
  private static Gateway a;
  private static Gateway b;
  private static String baseA;
  private static String baseB;

  @BeforeAll
  static void start() throws Exception {
    pg = LocalPostgres.start(dir.resolve("pg"), 0);
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String prefix = "flyrep-" + UUID.randomUUID().toString().substring(0, 8);
    // as deployed: clients on an api replica, sidecars post FLY to a mesh replica
    a =
        TaskHttp.start(
            TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-a"), flows, "api", pg.jdbcUrl()));
    b =
        TaskHttp.start(
            TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-b"), flows, "mesh", pg.jdbcUrl()));
    baseA = "http://127.0.0.1:" + a.port();
    baseB = "http://127.0.0.1:" + b.port();
  }

  @AfterAll
  static void stop() {
    Closing.closeAll(a, b, pg);
  }

  @Test
  void flyPostedOnBStreamsOnAAndSurvivesAPostgresRestart() throws Exception {
    String id = TaskHttp.callTool(baseA, "echo");
    TaskHttp.await(baseA + "/tasks/" + id, n -> true, Duration.ofSeconds(60));
    try (SseReader sse = SseReader.open(baseA + "/stream/" + id, null)) {
      assertThat(sse.status()).isEqualTo(200);
      assertThat(awaitFly(sse, id, "before", Duration.ofSeconds(30)))
          .as("FLY B -> A over NOTIFY")
          .isTrue();

      pg.stop();
      // while the database is down a FLY post still answers 200 (in-process fallback), nothing
      // crashes
      assertThat(TaskHttp.post(baseB + "/mesh/" + id + "/fly", fly("down", 0)).statusCode())
          .isEqualTo(200);
      assertThat(TaskHttp.get(baseA + "/health").statusCode()).isEqualTo(200);
      pg.restart();

      assertThat(awaitFly(sse, id, "after", Duration.ofSeconds(60)))
          .as("after the restart B's LISTEN/NOTIFY path reaches A again")
          .isTrue();
    }
    assertThat(TaskHttp.get(baseA + "/health").statusCode()).isEqualTo(200);
    assertThat(TaskHttp.get(baseB + "/health").statusCode()).isEqualTo(200);
  }

  /**
   * Posts numbered FLY events with {@code tag} to B until one of them arrives on A's stream (the
   * first ones may fall before a LISTEN connection is back).
   */
  private static boolean awaitFly(SseReader sse, String id, String tag, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int n = 0; System.nanoTime() < deadline; n++) {
      assertThat(TaskHttp.post(baseB + "/mesh/" + id + "/fly", fly(tag, n)).statusCode())
          .isEqualTo(200);
      SseReader.Event e = sse.next(Duration.ofMillis(300));
      while (e != null) {
        if (e.event().equals("partial") && e.data().contains("\"" + tag + "-")) {
          return true;
        }
        e = sse.next(Duration.ofMillis(50));
      }
    }
    return false;
  }

  private static String fly(String tag, int n) {
    return "{\"type\":\"partial\",\"text\":\"" + tag + "-" + n + "\"}";
  }
}

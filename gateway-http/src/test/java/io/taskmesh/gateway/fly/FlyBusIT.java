package io.taskmesh.gateway.fly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.schemas.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** FLY between two "replicas" (two buses) over a real Postgres LISTEN/NOTIFY. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FlyBusIT {
  private static FlyBus a;
  private static FlyBus b;

  @BeforeAll
  static void start() {
    String url = LocalPostgres.shared().jdbcUrl();
    a = new FlyBus(url);
    b = new FlyBus(url);
    await(() -> a.crossProcess() && b.crossProcess());
  }

  @AfterAll
  static void stop() {
    a.close();
    b.close();
  }

  @Test
  void anEventPublishedOnOneReplicaReachesSubscribersOfTheOther() throws Exception {
    BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
    BlockingQueue<JsonNode> onA = new LinkedBlockingQueue<>();
    try (AutoCloseable subB = b.subscribe("t-cross", onB::add);
        AutoCloseable subA = a.subscribe("t-cross", onA::add)) {
      a.publish("t-cross", Json.MAPPER.readTree("{\"partial\":true,\"text\":\"hi\"}"));
      assertThat(onB.poll(10, TimeUnit.SECONDS))
          .isEqualTo(Json.MAPPER.readTree("{\"partial\":true,\"text\":\"hi\"}"));
      assertThat(onA.poll(10, TimeUnit.SECONDS))
          .as("the publishing replica's own clients too")
          .isNotNull();
      assertThat(onA.poll(300, TimeUnit.MILLISECONDS)).as("exactly once locally").isNull();
    }
  }

  /**
   * Concurrent publishers share batches (one statement each); Postgres folds identical payloads of
   * one transaction into one notification, so the same token published at once by several
   * publishers must still arrive once per publish, and each publisher's events in its order.
   */
  @Test
  void concurrentPublishersLoseNoRepeatedTokenAndKeepTheirOrder() throws Exception {
    BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
    int publishers = 8;
    int each = 40;
    try (AutoCloseable subB = b.subscribe("t-burst", onB::add)) {
      ExecutorService pool = Executors.newFixedThreadPool(publishers);
      for (int p = 0; p < publishers; p++) {
        int publisher = p;
        pool.execute(
            () -> {
              for (int i = 0; i < each; i++) {
                String text = i % 2 == 0 ? "same" : publisher + "-" + i;
                a.publish("t-burst", Json.tree(java.util.Map.of("partial", true, "text", text)));
              }
            });
      }
      pool.shutdown();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
      List<String> got = new ArrayList<>();
      for (int i = 0; i < publishers * each; i++) {
        JsonNode e = onB.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("event %d of %d, got %s", i, publishers * each, got).isNotNull();
        got.add(e.get("text").asText());
      }
      assertThat(got.stream().filter("same"::equals)).hasSize(publishers * each / 2);
      for (int p = 0; p < publishers; p++) {
        String prefix = p + "-";
        assertThat(got.stream().filter(t -> t.startsWith(prefix)).toList())
            .as("publisher %d in order", p)
            .containsExactlyElementsOf(
                IntStream.range(0, each)
                    .filter(i -> i % 2 == 1)
                    .mapToObj(i -> prefix + i)
                    .toList());
      }
    }
  }

  /**
   * A mesh-only replica publishes without listening: its events reach the listening replicas, and
   * it holds no LISTEN connection of its own (Postgres sends it nothing).
   */
  @Test
  void aPublishOnlyReplicaReachesTheOthersWithoutListening() throws Exception {
    String url = LocalPostgres.shared().jdbcUrl();
    BlockingQueue<JsonNode> onA = new LinkedBlockingQueue<>();
    try (FlyBus meshOnly = new FlyBus(url, false);
        AutoCloseable subA = a.subscribe("t-mesh-only", onA::add)) {
      int listenersBefore = listeners(url);
      assertThat(meshOnly.crossProcess()).isTrue();
      for (int i = 0; i < 3; i++) {
        meshOnly.publish("t-mesh-only", Json.tree(java.util.Map.of("text", "m" + i)));
      }
      for (int i = 0; i < 3; i++) {
        assertThat(onA.poll(10, TimeUnit.SECONDS).get("text").asText()).isEqualTo("m" + i);
      }
      assertThat(listeners(url)).as("no LISTEN connection added").isEqualTo(listenersBefore);
    }
  }

  /** Backends that listen on a channel (this test's two buses, plus any other test's). */
  private static int listeners(String url) throws Exception {
    try (java.sql.Connection c = java.sql.DriverManager.getConnection(url);
        java.sql.Statement s = c.createStatement();
        java.sql.ResultSet r =
            s.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE query ILIKE 'LISTEN %'"
                    + " AND datname = current_database()")) {
      r.next();
      return r.getInt(1);
    }
  }

  @Test
  void aPayloadOver8000BytesStaysInProcess() throws Exception {
    BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
    BlockingQueue<JsonNode> onA = new LinkedBlockingQueue<>();
    try (AutoCloseable subB = b.subscribe("t-big", onB::add);
        AutoCloseable subA = a.subscribe("t-big", onA::add)) {
      a.publish("t-big", Json.tree(java.util.Map.of("text", "x".repeat(9000))));
      assertThat(onA.poll(5, TimeUnit.SECONDS)).isNotNull();
      // a small marker sent after it proves B's listener is live, so the big one really did not go
      // out
      a.publish("t-big", Json.tree(java.util.Map.of("text", "marker")));
      assertThat(onB.poll(10, TimeUnit.SECONDS).get("text").asText()).isEqualTo("marker");
    }
  }

  @Test
  void withTheDatabaseDownDeliveryFallsBackInProcessAndRecovers() throws Exception {
    LocalPostgres pg = LocalPostgres.shared();
    BlockingQueue<JsonNode> onA = new LinkedBlockingQueue<>();
    BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
    try (AutoCloseable subA = a.subscribe("t-down", onA::add);
        AutoCloseable subB = b.subscribe("t-down", onB::add)) {
      pg.stop();
      await(() -> !a.crossProcess());
      a.publish("t-down", Json.tree(java.util.Map.of("text", "local")));
      assertThat(onA.poll(5, TimeUnit.SECONDS).get("text").asText()).isEqualTo("local");
      pg.restart();
      await(() -> a.crossProcess() && b.crossProcess());
      a.publish("t-down", Json.tree(java.util.Map.of("text", "back")));
      assertThat(onB.poll(10, TimeUnit.SECONDS).get("text").asText()).isEqualTo("back");
    }
    assertThat(List.of(a.crossProcess(), b.crossProcess())).containsOnly(true);
  }

  private static void await(Await.Check condition) {
    Await.until(
        condition,
        Duration.ofSeconds(30),
        "both replicas' cross-process FLY state"); // a reconnecting thread sets it
  }

  @Test
  void busesOfTwoNamespacesOnOneDatabaseDoNotSeeEachOthersEvents() throws Exception {
    String url = LocalPostgres.shared().jdbcUrl();
    try (FlyBus teamA = new FlyBus(url, true, "team-a");
        FlyBus teamA2 = new FlyBus(url, true, "team-a");
        FlyBus teamB = new FlyBus(url, true, "Team.B")) {
      await(() -> teamA.crossProcess() && teamA2.crossProcess() && teamB.crossProcess());
      BlockingQueue<JsonNode> onA2 = new LinkedBlockingQueue<>();
      BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
      BlockingQueue<JsonNode> onDefault = new LinkedBlockingQueue<>();
      try (AutoCloseable subA2 = teamA2.subscribe("t-ns", onA2::add);
          AutoCloseable subB = teamB.subscribe("t-ns", onB::add);
          AutoCloseable subD = b.subscribe("t-ns", onDefault::add)) {
        teamA.publish("t-ns", Json.MAPPER.readTree("{\"text\":\"a\"}"));
        teamB.publish("t-ns", Json.MAPPER.readTree("{\"text\":\"b\"}"));
        assertThat(onA2.poll(10, TimeUnit.SECONDS))
            .isEqualTo(Json.MAPPER.readTree("{\"text\":\"a\"}"));
        assertThat(onB.poll(10, TimeUnit.SECONDS))
            .as("a mixed-case namespace keeps its channel")
            .isEqualTo(Json.MAPPER.readTree("{\"text\":\"b\"}"));
        // the other namespace's event, had it crossed, would be here by now: each bus's own came
        assertThat(onA2.poll(500, TimeUnit.MILLISECONDS)).isNull();
        assertThat(onB.poll(500, TimeUnit.MILLISECONDS)).isNull();
        assertThat(onDefault.poll(500, TimeUnit.MILLISECONDS)).isNull();
      }
    }
  }
}

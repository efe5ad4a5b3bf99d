package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.schemas.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
   * Events are published in batches (one statement each); Postgres folds identical payloads of one
   * transaction into one notification, so a repeated token must still arrive twice, in order.
   */
  @Test
  void aBurstArrivesWholeAndInOrderRepeatedTokensIncluded() throws Exception {
    BlockingQueue<JsonNode> onB = new LinkedBlockingQueue<>();
    List<String> tokens = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      tokens.add(i % 3 == 0 ? "same" : "tok" + i);
    }
    try (AutoCloseable subB = b.subscribe("t-burst", onB::add)) {
      for (String t : tokens) {
        a.publish("t-burst", Json.tree(java.util.Map.of("partial", true, "text", t)));
      }
      List<String> got = new ArrayList<>();
      for (int i = 0; i < tokens.size(); i++) {
        JsonNode e = onB.poll(10, TimeUnit.SECONDS);
        assertThat(e).as("event %d of %d", i, tokens.size()).isNotNull();
        got.add(e.get("text").asText());
      }
      assertThat(got).containsExactlyElementsOf(tokens);
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
}

package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.get;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two gateway replicas in one JVM on one broker: same Streams application id, task topic with 4
 * partitions, own state dirs and ports. Every read answers on either replica; SSE on A gets updates
 * folded on B; while B leaves, A answers 200 or 503, never a wrong 404.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicasIT {
  private static final int TASKS = 12;
  @TempDir static Path dir;
  private static Gateway a;
  private static Gateway b;
  private static String baseA;
  private static String baseB;
  private static final List<String> ids = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows, "flows:\n  - {name: two, entrypoint: first, route_next: [second], mcp: {}}\n");
    String prefix = "replicas-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> envA =
        TaskHttp.env(prefix, dir.resolve("state-a"), flows, TaskHttp.freePort());
    Map<String, String> envB =
        TaskHttp.env(prefix, dir.resolve("state-b"), flows, TaskHttp.freePort());
    envA.put("SVC_TASK_TOPIC_PARTITIONS", "4");
    envB.put("SVC_TASK_TOPIC_PARTITIONS", "4");
    a = TaskHttp.start(envA);
    b = TaskHttp.start(envB);
    baseA = "http://127.0.0.1:" + a.port();
    baseB = "http://127.0.0.1:" + b.port();
    for (int i = 0; i < TASKS; i++) {
      ids.add(TaskHttp.callTool(i % 2 == 0 ? baseA : baseB, "two"));
    }
  }

  @AfterAll
  static void stop() {
    for (Gateway g : new Gateway[] {a, b}) {
      if (g != null) {
        g.close();
      }
    }
  }

  @Test
  @Order(1)
  void everyTaskAnswersOnBothReplicasWhicheverOwnsIt() throws Exception {
    for (String id : ids) {
      for (String base : List.of(baseA, baseB)) {
        JsonNode t =
            await(
                base + "/tasks/" + id,
                n -> n.get("status").asText().equals("pending"),
                Duration.ofSeconds(60));
        assertThat(t.get("id").asText()).isEqualTo(id);
        JsonNode mesh = await(base + "/mesh/" + id, n -> true, Duration.ofSeconds(60));
        assertThat(mesh.get("route").get("curr").asText()).isEqualTo("first");
      }
    }
    Set<String> ownedByA = owned(baseA);
    Set<String> ownedByB = owned(baseB);
    assertThat(ownedByA).as("both replicas own some tasks").isNotEmpty();
    assertThat(ownedByB).isNotEmpty();
    assertThat(new TreeSet<>(ownedByA)).doesNotContainAnyElementsOf(ownedByB);
    assertThat(ownedByA.size() + ownedByB.size()).isEqualTo(TASKS);
    assertThat(get(baseA + "/tasks/no-such-task").statusCode()).isEqualTo(404);
    assertThat(get(baseB + "/mesh/no-such-task").statusCode()).isEqualTo(404);
  }

  @Test
  @Order(2)
  void sseOnAGetsUpdatesFoldedOnBAndResumesWithLastEventId() throws Exception {
    String id = owned(baseB).iterator().next();
    String[][] steps = {
      {"", "first", "second", "received"},
      {"", "first", "second", "processing"},
      {"", "first", "second", "completed"},
      {"first", "second", "", "received"}
    };
    String lastSeen;
    try (SseReader sse = SseReader.open(baseA + "/mesh/" + id + "/stream", null)) {
      assertThat(sse.next(Duration.ofSeconds(10)).id()).isEqualTo("1"); // replayed: created
      for (String[] s : steps) {
        assertThat(
                post(baseB + "/mesh/" + id + "/progress", TaskHttp.progress(s[0], s[1], s[2], s[3]))
                    .statusCode())
            .isEqualTo(200);
      }
      List<String> seen = new ArrayList<>();
      while (seen.size() < steps.length) {
        SseReader.Event e = sse.next(Duration.ofSeconds(20));
        assertThat(e).as("live update from B after %s", seen).isNotNull();
        if (e.event().equals("update")) {
          seen.add(e.id());
        }
      }
      assertThat(seen).containsExactly("2", "3", "4", "5");
      lastSeen = seen.get(seen.size() - 1);
    }
    // while disconnected: two more updates, then reconnect on A with Last-Event-ID
    post(
        baseB + "/mesh/" + id + "/progress",
        TaskHttp.progress("first", "second", "", "processing"));
    post(
        baseA + "/mesh/" + id + "/final",
        "{\"id\":\"" + id + "\",\"status\":\"succeeded\",\"result\":{\"n\":1}}");
    await(
        baseA + "/tasks/" + id,
        n -> n.get("status").asText().equals("succeeded"),
        Duration.ofSeconds(30));
    try (SseReader again = SseReader.open(baseA + "/stream/" + id, lastSeen)) {
      List<SseReader.Event> rest =
          again.readUntilClosed(Duration.ofSeconds(20)).stream()
              .filter(e -> e.event().equals("update"))
              .toList();
      assertThat(rest).extracting(SseReader.Event::id).containsExactly("6", "7");
      assertThat(Json.MAPPER.readTree(rest.get(1).data()).get("status").asText())
          .isEqualTo("succeeded");
    }
  }

  @Test
  @Order(3)
  void whileBLeavesAAnswers200Or503NeverA404() throws Exception {
    List<Integer> codes = new ArrayList<>();
    Thread closer =
        new Thread(
            () -> {
              b.close();
              b = null;
            });
    closer.start();
    Set<String> served = new TreeSet<>();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (served.size() < TASKS && System.nanoTime() < deadline) {
      for (String id : ids) {
        HttpResponse<String> r = get(baseA + "/tasks/" + id);
        codes.add(r.statusCode());
        assertThat(r.statusCode())
            .as("task %s on A while B leaves: %s", id, r.body())
            .isIn(200, 503);
        if (r.statusCode() == 503) {
          assertThat(r.headers().firstValue("Retry-After")).isPresent();
        } else if (!closer.isAlive()) {
          served.add(id);
        }
      }
    }
    closer.join();
    assertThat(served).as("A alone serves every task after B left").hasSize(TASKS);
    assertThat(owned(baseA)).hasSize(TASKS);
  }

  /**
   * The tasks whose owner is the replica at {@code base}: its internal route answers 200 only for
   * those.
   */
  private static Set<String> owned(String base) throws Exception {
    Set<String> out = new TreeSet<>();
    for (String id : ids) {
      int code = get(base + "/internal/tasks/" + id).statusCode();
      assertThat(code).isIn(200, 503);
      if (code == 200) {
        out.add(id);
      }
    }
    return out;
  }
}

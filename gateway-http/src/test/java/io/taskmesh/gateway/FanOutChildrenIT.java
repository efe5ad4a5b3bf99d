package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fan-out children as the sidecar registers them ({@code POST /tasks}, own ids, {@code index: 0}),
 * on a real broker: each is a task of its own that reaches its own terminal state, and the parent's
 * mesh form lists them; a route a handler grows shows on SSE.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FanOutChildrenIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @TempDir static Path dir;
  private static Gateway gateway;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: open, entrypoint: a, mcp: {}}\n");
    String prefix = "fanout-" + UUID.randomUUID().toString().substring(0, 8);
    gateway =
        TaskHttp.start(TaskHttp.env(prefix, dir.resolve("state"), flows, TaskHttp.freePort()));
    base = "http://127.0.0.1:" + gateway.port();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private static String child(String id, String parent) {
    return "{\"id\":\""
        + id
        + "\",\"parent_id\":\""
        + parent
        + "\",\"actors\":[\"fan\",\"work\"],\"current\":1,"
        + "\"index\":0,\"payload\":{\"part\":\""
        + id
        + "\"}}";
  }

  @Test
  void threeChildrenReachTheirOwnTerminalStatesAndTheParentFindsThem() throws Exception {
    String parent = "parent-" + UUID.randomUUID();
    assertThat(
            post(base + "/mesh", "{\"id\":\"" + parent + "\",\"curr\":\"fan\",\"next\":[\"work\"]}")
                .statusCode())
        .isEqualTo(201);
    await(base + "/mesh/" + parent, n -> true, WAIT);
    List<String> kids = List.of(parent + "-c1", parent + "-c2", parent + "-c3");
    String body = "[" + String.join(",", kids.stream().map(k -> child(k, parent)).toList()) + "]";
    assertThat(post(base + "/tasks", body).statusCode()).isEqualTo(201);
    assertThat(post(base + "/tasks", body).statusCode())
        .as("a retried batch registers again")
        .isEqualTo(201);

    for (int i = 0; i < kids.size(); i++) {
      String k = kids.get(i);
      JsonNode t = await(base + "/mesh/" + k, n -> true, WAIT);
      assertThat(t.get("parent_id").asText()).isEqualTo(parent);
      assertThat(t.get("route").get("curr").asText()).isEqualTo("work");
      assertThat(TaskHttp.json(TaskHttp.get(base + "/tasks/" + k)).get("current_actor_idx").asInt())
          .isEqualTo(1);
      post(base + "/mesh/" + k + "/progress", TaskHttp.progress("fan", "work", "", "completed"));
      String fin =
          i == 1
              ? "{\"id\":\""
                  + k
                  + "\",\"status\":\"failed\",\"error\":\"boom\",\"current_actor_name\":\"x-sink\"}"
              : "{\"id\":\""
                  + k
                  + "\",\"status\":\"succeeded\",\"result\":{\"ok\":true},\"current_actor_name\":\"x-sink\"}";
      assertThat(post(base + "/mesh/" + k + "/final", fin).statusCode()).isEqualTo(200);
    }
    assertThat(
            await(
                    base + "/tasks/" + kids.get(0),
                    n -> n.get("status").asText().equals("succeeded"),
                    WAIT)
                .get("current_actor_idx")
                .asInt())
        .as("x-sink stands after the route")
        .isEqualTo(2);
    await(base + "/tasks/" + kids.get(1), n -> n.get("status").asText().equals("failed"), WAIT);
    await(base + "/tasks/" + kids.get(2), n -> n.get("status").asText().equals("succeeded"), WAIT);

    JsonNode p = await(base + "/mesh/" + parent, n -> n.get("children").size() == 3, WAIT);
    assertThat(p.get("children"))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrderElementsOf(kids);
    assertThat(p.get("status").asText()).as("the parent runs on").isEqualTo("pending");
  }

  @Test
  void aRouteAHandlerGrowsShowsOnSse() throws Exception {
    String id = "grow-" + UUID.randomUUID();
    assertThat(
            post(base + "/mesh", "{\"id\":\"" + id + "\",\"curr\":\"a\",\"next\":[\"b\"]}")
                .statusCode())
        .isEqualTo(201);
    await(base + "/mesh/" + id, n -> true, WAIT);
    post(base + "/mesh/" + id + "/progress", TaskHttp.progress("", "a", "b", "completed"));
    // a added c: b is actor 1 of 3, its received (36.67 % by the formula) must not be dropped as
    // stale
    post(base + "/mesh/" + id + "/progress", TaskHttp.progress("a", "b", "c", "received"));
    post(base + "/mesh/" + id + "/progress", TaskHttp.progress("a,b", "c", "", "processing"));
    post(
        base + "/mesh/" + id + "/final",
        "{\"id\":\""
            + id
            + "\",\"status\":\"succeeded\",\"result\":1,"
            + "\"current_actor_name\":\"x-sink\"}");
    try (SseReader sse = SseReader.open(base + "/mesh/" + id + "/stream", null)) {
      List<JsonNode> updates =
          sse.readUntilClosed(WAIT).stream()
              .filter(e -> e.event().equals("update"))
              .map(e -> Json.read(e.data().getBytes(), JsonNode.class))
              .toList();
      List<String> actors =
          updates.stream()
              .filter(u -> u.hasNonNull("actor"))
              .map(u -> u.get("actor").asText() + "@" + u.get("current_actor_idx").asInt())
              .toList();
      assertThat(actors).containsSubsequence("a@0", "b@1", "c@2");
      List<Double> percents =
          updates.stream().map(u -> u.path("progress_percent").asDouble()).toList();
      assertThat(percents).isSorted();
      assertThat(updates.get(updates.size() - 2).get("actors"))
          .extracting(JsonNode::asText)
          .containsExactly("a", "b", "c");
    }
    JsonNode done =
        await(base + "/mesh/" + id, n -> n.get("status").asText().equals("succeeded"), WAIT);
    assertThat(done.get("route").get("prev"))
        .extracting(JsonNode::asText)
        .containsExactly("a", "b", "c");
  }
}

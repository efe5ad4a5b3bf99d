package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fan-out children as real tasks, all real: the dev stack on a real broker with the Python handlers
 * of {@code src/test/resources/fanout-dev} ({@code split} yields the parent's frame and one child
 * per item, {@code work} fails on an item marked {@code fail}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FanOutDevIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path root = TestStacks.root();
    Path config = Path.of(FanOutDevIT.class.getResource("/fanout-dev").toURI());
    stack = TestStacks.onSharedBroker(config, data, "it");
    base = stack.gatewayUrl();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void threeChildrenAreTasksWithTheirOwnEndsAndTheParentListsThem() throws Exception {
    String parent =
        callTool(
            "fanout", "{\"items\":[{\"n\":1},{\"n\":2,\"fail\":true},{\"n\":3,\"tag\":\"last\"}]}");
    List<String> children = awaitChildren(parent, 3);

    Map<String, Integer> ends = new HashMap<>();
    List<JsonNode> finals = new ArrayList<>();
    for (String child : children) {
      JsonNode task = awaitFinal(child);
      finals.add(task);
      ends.merge(task.get("status").asText(), 1, Integer::sum);
      JsonNode mesh = getJson("/mesh/" + child);
      assertThat(mesh.get("parent_id").asText()).as(mesh.toString()).isEqualTo(parent);
    }
    assertThat(ends).isEqualTo(Map.of("succeeded", 2, "failed", 1));
    assertThat(finals)
        .filteredOn(t -> t.get("status").asText().equals("succeeded"))
        .extracting(t -> t.at("/result/n").asInt())
        .containsExactlyInAnyOrder(1, 3);
    assertThat(awaitFinal(parent).get("status").asText()).isEqualTo("succeeded");
  }

  @Test
  void restartingTheSidecarsWhileChildrenAreInFlightLosesNoChildAndRegistersNoneTwice()
      throws Exception {
    String items = "{\"items\":[{\"sleep\":0.4},{\"sleep\":0.4},{\"sleep\":0.4}]}";
    List<String> parents = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      parents.add(callTool("fanout", items));
    }
    // the first parent's children exist and the others' wait behind them at work
    List<String> first = awaitChildren(parents.get(0), 3);
    stack.restartActor("work");
    parents.add(callTool("fanout", items));
    stack.restartActor("split");
    parents.add(callTool("fanout", items));

    List<String> all = new ArrayList<>(first);
    for (String parent : parents.subList(1, parents.size())) {
      all.addAll(awaitChildren(parent, 3));
    }
    assertThat(all).hasSize(15).doesNotHaveDuplicates();
    for (String parent : parents) {
      assertThat(awaitFinal(parent).get("status").asText()).isEqualTo("succeeded");
      // no child registered twice: still exactly three once everything ended
      assertThat(getJson("/mesh/" + parent).get("children")).hasSize(3);
    }
    for (String child : all) {
      assertThat(awaitFinal(child).get("status").asText()).isEqualTo("succeeded");
      try (SseReader sse = SseReader.open(base + "/stream/" + child, null)) {
        List<SseReader.Event> events = sse.readUntilClosed(Duration.ofSeconds(10));
        assertThat(events)
            .filteredOn(e -> e.event().equals("update"))
            .filteredOn(e -> TaskStatus.fromWire(status(e)).isFinal())
            .as("terminal updates of " + child)
            .hasSize(1);
      }
    }
  }

  @Test
  void aRouteThatGrowsAtRunTimeIsShownOnTheStreamAndTheMeshForm() throws Exception {
    String id = callTool("growing", "{\"n\":7}");
    List<JsonNode> updates = new ArrayList<>();
    try (SseReader sse = SseReader.open(base + "/stream/" + id, null)) {
      for (SseReader.Event e : sse.readUntilClosed(Duration.ofSeconds(40))) {
        if (e.event().equals("update")) {
          updates.add(Json.MAPPER.readTree(e.data()));
        }
      }
    }
    assertThat(updates.get(updates.size() - 1).get("status").asText()).isEqualTo("succeeded");
    // the added actors' progress is applied, in route order, and the percent never drops
    List<String> actors = new ArrayList<>();
    double percent = -1;
    for (JsonNode u : updates) {
      if (u.hasNonNull("actor")
          && (actors.isEmpty() || !actors.get(actors.size() - 1).equals(u.get("actor").asText()))) {
        actors.add(u.get("actor").asText());
      }
      if (u.hasNonNull("progress_percent")) {
        assertThat(u.get("progress_percent").asDouble())
            .as(u.toString())
            .isGreaterThanOrEqualTo(percent);
        percent = u.get("progress_percent").asDouble();
      }
      if (u.hasNonNull("actor")
          && u.hasNonNull("current_actor_idx")
          && u.hasNonNull("actors")
          && u.get("current_actor_idx").asInt() < u.get("actors").size()) {
        assertThat(u.get("actors").get(u.get("current_actor_idx").asInt()).asText())
            .as("actor index and name agree: " + u)
            .isEqualTo(u.get("actor").asText());
      }
    }
    assertThat(actors).as(updates.toString()).containsSubsequence("grow", "work", "finish");
    JsonNode route = getJson("/mesh/" + id).get("route");
    assertThat(route.get("prev"))
        .extracting(JsonNode::asText)
        .containsExactly("grow", "work", "finish");
    assertThat(awaitFinal(id).get("result").get("n").asInt()).isEqualTo(7);
  }

  private static String status(SseReader.Event e) {
    try {
      return Json.MAPPER.readTree(e.data()).path("status").asText();
    } catch (java.io.IOException ex) {
      throw new AssertionError(ex);
    }
  }

  private static List<String> awaitChildren(String parent, int count) {
    JsonNode mesh =
        Await.until(
            () -> getJson("/mesh/" + parent),
            m -> m.path("children").size() >= count,
            Duration.ofSeconds(40),
            "parent " + parent + " never listed " + count + " children");
    List<String> ids = new ArrayList<>();
    mesh.get("children").forEach(c -> ids.add(c.asText()));
    assertThat(ids).as(mesh.toString()).hasSize(count);
    return ids;
  }

  private static JsonNode awaitFinal(String id) {
    return Await.until(
        () -> getJson("/tasks/" + id),
        t -> TaskStatus.fromWire(t.path("status").asText()).isFinal(),
        Duration.ofSeconds(40),
        "task " + id + " never ended");
  }

  private static String callTool(String name, String args) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"" + name + "\",\"arguments\":" + args + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  private static JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }
}

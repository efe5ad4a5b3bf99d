package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.get;
import static io.taskmesh.gateway.TaskHttp.json;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Legacy fan-out routes, paused final reports, the deadline backstop and SSE keepalive, on a real
 * broker.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MeshTasksIT {
  @TempDir static Path dir;
  private static Gateway gateway;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        """
        flows:
          - {name: quick, entrypoint: slow-actor, timeout: 1, mcp: {}}
          - {name: open, entrypoint: slow-actor, route_next: [b], mcp: {}}
        """);
    String prefix = "meshtasks-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env =
        TaskHttp.env(prefix, dir.resolve("state"), flows, TaskHttp.freePort());
    env.put("SVC_SSE_KEEPALIVE", "200ms");
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void postMeshCreatesAFanOutChild() throws Exception {
    String id = "child-" + UUID.randomUUID();
    HttpResponse<String> r =
        post(
            base + "/mesh",
            "{\"id\":\""
                + id
                + "\",\"parent_id\":\"p-1\",\"prev\":[\"a\"],\"curr\":\"b\",\"next\":[\"c\"]}");
    assertThat(r.statusCode()).isEqualTo(201);
    assertThat(json(r).get("status").asText()).isEqualTo("created");
    assertThat(json(r).get("id").asText()).isEqualTo(id);
    JsonNode mesh = await(base + "/mesh/" + id, n -> true, Duration.ofSeconds(30));
    assertThat(mesh.get("parent_id").asText()).isEqualTo("p-1");
    assertThat(mesh.get("status").asText()).isEqualTo("pending");
    assertThat(mesh.get("route").get("curr").asText()).isEqualTo("b");
    assertThat(mesh.get("total_actors").asInt()).isEqualTo(3);
    assertThat(post(base + "/mesh", "{\"id\":\"" + id + "\",\"curr\":\"z\"}").statusCode())
        .as("a repeated create is refused and changes nothing")
        .isEqualTo(409);
    assertThat(
            post(base + "/mesh/" + id + "/progress", TaskHttp.progress("a", "b", "c", "completed"))
                .statusCode())
        .isEqualTo(200);
    JsonNode running =
        await(
            base + "/mesh/" + id,
            n -> n.get("status").asText().equals("running"),
            Duration.ofSeconds(30));
    assertThat(running.get("route").get("curr").asText()).isEqualTo("b");
    assertThat(running.get("progress_percent").asDouble()).isEqualTo(66.67);
  }

  @Test
  void postTasksNamesChildrenByIndex() throws Exception {
    String id = "fan-" + UUID.randomUUID();
    HttpResponse<String> one =
        post(
            base + "/tasks",
            "{\"id\":\""
                + id
                + "\",\"parent_id\":\"root\",\"actors\":[\"a\",\"b\",\"c\"],\"current\":1}");
    assertThat(one.statusCode()).isEqualTo(201);
    assertThat(json(one).get("id").asText()).isEqualTo(id);
    HttpResponse<String> many =
        post(
            base + "/tasks",
            "[{\"id\":\""
                + id
                + "\",\"parent_id\":\"root\",\"actors\":[\"a\",\"b\"],"
                + "\"current\":1,\"index\":1},{\"id\":\""
                + id
                + "\",\"parent_id\":\"root\",\"actors\":[\"a\",\"b\"],\"current\":1,\"index\":2}]");
    assertThat(many.statusCode()).isEqualTo(201);
    assertThat(json(many).get("ids"))
        .extracting(JsonNode::asText)
        .containsExactly(id + "-1", id + "-2");
    for (String child : List.of(id, id + "-1", id + "-2")) {
      JsonNode t = await(base + "/mesh/" + child, n -> true, Duration.ofSeconds(30));
      assertThat(t.get("parent_id").asText()).isEqualTo("root");
      assertThat(t.get("route").get("curr").asText()).isEqualTo("b");
    }
    HttpResponse<String> array =
        post(
            base + "/tasks",
            "[{\"id\":\"arr\",\"actors\":[\"a\"],\"current\":0},"
                + "{\"id\":\"arr\",\"actors\":[\"a\"],\"current\":0}]");
    assertThat(json(array).get("ids")).extracting(JsonNode::asText).containsExactly("arr", "arr-1");
    JsonNode task = await(base + "/tasks/" + id, n -> true, Duration.ofSeconds(30));
    assertThat(task.get("current_actor_name").asText()).isEqualTo("b");
  }

  @Test
  void badCreatesAreRefusedAndCreateNothing() throws Exception {
    String[] badMesh = {
      "{",
      "[]",
      "{}",
      "{\"id\":\"x1\"}",
      "{\"id\":5,\"curr\":\"a\"}",
      "{\"id\":\"\",\"curr\":\"a\"}",
      "{\"id\":\"x1\",\"curr\":\"a\",\"prev\":\"a\"}",
      "{\"id\":\"x1\",\"curr\":\"a\",\"next\":[1]}",
      "{\"id\":\"a/b\",\"curr\":\"a\"}",
      "{\"id\":\"x1\",\"parent_id\":7,\"curr\":\"a\"}"
    };
    for (String body : badMesh) {
      assertThat(post(base + "/mesh", body).statusCode()).as(body).isEqualTo(400);
    }
    String[] badTasks = {
      "{",
      "[]",
      "7",
      "{\"id\":\"x2\",\"actors\":[\"a\"]}",
      "{\"id\":\"x2\",\"actors\":[],\"current\":0}",
      "{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":1}",
      "{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":-1}",
      "{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":\"0\"}",
      "{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":0.5}",
      "{\"actors\":[\"a\"],\"current\":0}",
      "{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":0,\"index\":-1}",
      "[{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":0},{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":0,\"index\":0}]",
      "[{\"id\":\"x2\",\"actors\":[\"a\"],\"current\":0},{\"id\":\"x2\"}]"
    };
    for (String body : badTasks) {
      assertThat(post(base + "/tasks", body).statusCode()).as(body).isEqualTo(400);
    }
    String[] badFinal = {
      "{",
      "[]",
      "{\"status\":\"maybe\"}",
      "{}",
      "{\"status\":\"canceled\"}",
      "{\"status\":\"paused\",\"metadata\":3}"
    };
    for (String body : badFinal) {
      assertThat(post(base + "/mesh/x3/final", body).statusCode()).as(body).isEqualTo(400);
    }
    // let anything wrongly appended fold, then check nothing exists
    post(base + "/mesh", "{\"id\":\"marker-bad\",\"curr\":\"a\"}");
    await(base + "/mesh/marker-bad", n -> true, Duration.ofSeconds(30));
    for (String id : List.of("x1", "x2", "x2-1", "x3")) {
      assertThat(get(base + "/tasks/" + id).statusCode()).as(id).isEqualTo(404);
    }
  }

  @Test
  void pausedFromTheSidecarThenFinal() throws Exception {
    String id = TaskHttp.callTool(base, "open");
    post(
        base + "/mesh/" + id + "/progress", TaskHttp.progress("", "slow-actor", "b", "processing"));
    assertThat(
            post(
                    base + "/mesh/" + id + "/final",
                    "{\"id\":\""
                        + id
                        + "\",\"status\":\"paused\","
                        + "\"current_actor_name\":\"slow-actor\",\"metadata\":{\"parked_topic\":\"t\"}}")
                .statusCode())
        .isEqualTo(200);
    JsonNode paused =
        await(
            base + "/tasks/" + id,
            n -> n.get("status").asText().equals("paused"),
            Duration.ofSeconds(30));
    assertThat(paused.get("progress_percent").asDouble()).isEqualTo(25.0);
    assertThat(get(base + "/mesh/" + id + "/active").statusCode()).isEqualTo(200);
    post(
        base + "/mesh/" + id + "/final",
        "{\"id\":\"" + id + "\",\"status\":\"failed\",\"error\":\"declined\"}");
    await(
        base + "/tasks/" + id,
        n -> n.get("status").asText().equals("failed"),
        Duration.ofSeconds(30));
    assertThat(get(base + "/mesh/" + id + "/active").statusCode()).isEqualTo(410);
  }

  @Test
  void aTaskWithoutAFinalReportByItsDeadlineFails() throws Exception {
    String id = TaskHttp.callTool(base, "quick"); // timeout: 1 s, nobody runs slow-actor
    try (SseReader sse = SseReader.open(base + "/mesh/" + id + "/stream", null)) {
      List<SseReader.Event> events = sse.readUntilClosed(Duration.ofSeconds(30));
      List<SseReader.Event> updates =
          events.stream().filter(e -> e.event().equals("update")).toList();
      JsonNode last =
          io.taskmesh.schemas.Json.MAPPER.readTree(updates.get(updates.size() - 1).data());
      assertThat(last.get("status").asText()).isEqualTo("failed");
      assertThat(last.get("error").asText()).startsWith("timeout");
      assertThat(events)
          .as("keepalive comments every 200 ms while waiting")
          .anyMatch(e -> e.event().equals("comment") && e.data().equals("keepalive"));
    }
    JsonNode task = json(get(base + "/tasks/" + id));
    assertThat(task.get("status").asText()).isEqualTo("failed");
    assertThat(task.get("error").asText()).startsWith("timeout");
    assertThat(
            post(
                    base + "/mesh/" + id + "/final",
                    "{\"id\":\"" + id + "\",\"status\":\"succeeded\"}")
                .statusCode())
        .isEqualTo(200);
    assertThat(get(base + "/mesh/" + id + "/active").statusCode()).isEqualTo(410);
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.Closing;
import io.taskmesh.topology.TaskViewConfig;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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
 * Two api replicas with client auth on and a shared {@code SVC_INTERNAL_TOKEN}: a client's task
 * answers on both replicas whichever owns it (the forwarded query carries the token), while {@code
 * /internal/tasks/{id}} refuses anyone without the token, so it cannot be used to read a foreign
 * task past the owner check. A2A {@code tasks/list} pages over every replica's tasks.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InternalTokenIT {
  private static final String MCP_KEY = "mcp-" + UUID.randomUUID();
  private static final String A2A_KEY = "a2a-" + UUID.randomUUID();
  private static final String TOKEN = "internal-" + UUID.randomUUID();
  @TempDir static Path dir;
  private static Gateway a;
  private static Gateway b;
  private static String baseA;
  private static String baseB;

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}, a2a: {}}\n");
    String prefix = "internal-" + UUID.randomUUID().toString().substring(0, 8);
    a = TaskHttp.start(apiEnv(prefix, "a", flows));
    b = TaskHttp.start(apiEnv(prefix, "b", flows));
    baseA = "http://127.0.0.1:" + a.port();
    baseB = "http://127.0.0.1:" + b.port();
  }

  private static Map<String, String> apiEnv(String prefix, String name, Path flows) {
    Map<String, String> env =
        TaskHttp.env(prefix, dir.resolve("state-" + name), flows, TaskHttp.freePort());
    env.put("SVC_GATEWAY_MODE", "api");
    env.put("SVC_TASK_TOPIC_PARTITIONS", "4");
    env.put("SVC_MCP_API_KEY", MCP_KEY);
    env.put("SVC_A2A_API_KEY", A2A_KEY);
    env.put("SVC_INTERNAL_TOKEN", TOKEN);
    return env;
  }

  @AfterAll
  static void stop() {
    Closing.closeAll(a, b);
  }

  @Test
  void tasksAnswerOnBothReplicasAndInternalRoutesNeedTheToken() throws Exception {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      HttpResponse<String> r =
          send(
              HttpRequest.newBuilder(URI.create((i % 2 == 0 ? baseA : baseB) + "/tools/call"))
                  .header("Authorization", "Bearer " + MCP_KEY)
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"name\":\"echo\",\"arguments\":{\"i\":" + i + "}}")));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      ids.add(
          TaskHttp.json(r)
              .get("content")
              .get(0)
              .get("text")
              .asText()
              .replaceAll(".*\"task_id\":\"([^\"]+)\".*", "$1"));
    }
    int ownedByA = 0;
    for (String id : ids) {
      for (String base : List.of(baseA, baseB)) {
        assertThat(awaitOk(base + "/tasks/" + id)).as(base + " " + id).isEqualTo(200);
      }
      // the owner check of /internal: no token or a wrong one is refused, the right one answers
      assertThat(send(get(baseA + "/internal/tasks/" + id)).statusCode()).isEqualTo(403);
      assertThat(
              send(get(baseA + "/internal/tasks/" + id)
                      .header(TaskViewConfig.INTERNAL_TOKEN_HEADER, TOKEN + "x"))
                  .statusCode())
          .isEqualTo(403);
      assertThat(
              send(get(baseA + "/internal/tasks/" + id)
                      .header("Authorization", "Bearer " + MCP_KEY))
                  .statusCode())
          .as("a client's bearer is not the internal token")
          .isEqualTo(403);
      int right =
          send(get(baseA + "/internal/tasks/" + id)
                  .header(TaskViewConfig.INTERNAL_TOKEN_HEADER, TOKEN))
              .statusCode();
      assertThat(right).as("owner answers 200, the other replica 503").isIn(200, 503);
      ownedByA += right == 200 ? 1 : 0;
    }
    assertThat(ownedByA)
        .as("both replicas own some of the 16 tasks, so some reads were forwarded")
        .isBetween(1, ids.size() - 1);
  }

  @Test
  void a2aTasksListCoversTheTasksOfEveryReplica() throws Exception {
    java.util.Set<String> sent = new java.util.TreeSet<>();
    for (int i = 0; i < 16; i++) {
      JsonNode r =
          a2a(
              i % 2 == 0 ? baseA : baseB,
              "{\"jsonrpc\":\"2.0\",\"id\":"
                  + i
                  + ",\"method\":\"message/send\","
                  + "\"params\":{\"message\":{\"role\":\"user\",\"messageId\":\"m"
                  + i
                  + "\",\"parts\":[{\"kind\":\"text\","
                  + "\"text\":\"n"
                  + i
                  + "\"}]},\"configuration\":{\"blocking\":false}}}");
      sent.add(r.at("/result/id").asText());
    }
    for (String base : List.of(baseA, baseB)) {
      java.util.Set<String> listed = new java.util.TreeSet<>();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!listed.equals(sent) && System.nanoTime() < deadline) {
        listed.clear();
        String token = "";
        do { // page through, 5 at a time
          JsonNode page =
              a2a(
                  base,
                  "{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tasks/list\",\"params\":"
                      + "{\"pageSize\":5,\"pageToken\":\""
                      + token
                      + "\"}}");
          assertThat(page.has("result")).as(page.toString()).isTrue();
          page.at("/result/tasks").forEach(t -> listed.add(t.get("id").asText()));
          token = page.at("/result/nextPageToken").asText();
        } while (!token.isEmpty());
        if (!listed.equals(sent)) {
          Thread.sleep(50); // created events fold asynchronously
        }
      }
      assertThat(listed).as("tasks/list on " + base).isEqualTo(sent);
    }
  }

  private static JsonNode a2a(String base, String body) throws Exception {
    HttpResponse<String> r =
        send(
            HttpRequest.newBuilder(URI.create(base + "/a2a/"))
                .header("X-API-Key", A2A_KEY)
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return TaskHttp.json(r);
  }

  private static int awaitOk(String url) throws Exception {
    // the created event folds asynchronously: 200 once it has; whatever answers last otherwise
    try {
      return Await.until(
          () -> send(get(url).header("Authorization", "Bearer " + MCP_KEY)).statusCode(),
          code -> code == 200,
          Duration.ofSeconds(60),
          "200 from " + url);
    } catch (AssertionError notYet) {
      return send(get(url).header("Authorization", "Bearer " + MCP_KEY)).statusCode();
    }
  }

  private static HttpRequest.Builder get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).GET();
  }

  private static HttpResponse<String> send(HttpRequest.Builder req) throws Exception {
    return TaskHttp.HTTP.send(
        req.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
  }
}

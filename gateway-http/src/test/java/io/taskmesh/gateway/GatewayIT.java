package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The gateway against a real broker: sidecar reports are posted by the test itself. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GatewayIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
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
          - name: echo
            entrypoint: echo
            description: returns its input
            mcp:
              inputSchema: {type: object}
          - name: pipeline
            entrypoint: upper
            route_next: [reverse, count]
            timeout: 60
            mcp: {}
          - name: hidden
            entrypoint: echo
        """);
    Map<String, String> env = TaskHttp.singleEnv("testing", dir, flows, "gateway-it");
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
  void everyRouteOfTheTestingModeIsDocumentedAndEveryDocumentedOneIsServed() {
    assertThat(RegisteredRoutes.of(gateway.app().javalin(), GatewayMode.TESTING))
        .containsExactlyInAnyOrderElementsOf(ApiDocument.operationsServedBy("gateway:testing"));
  }

  @Test
  void servesTheApiDocument() throws Exception {
    HttpResponse<String> r = get("/openapi.json");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    assertThat(r.body()).isEqualTo(new String(ApiDocument.openApiJson(), StandardCharsets.UTF_8));
  }

  @Test
  void healthIsPlainOk() throws Exception {
    HttpResponse<String> r = get("/health");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("OK");
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
  }

  @Test
  void badToolCallsAreRefusedAndCreateNothing() throws Exception {
    assertThat(post("/tools/call", "{not json").statusCode()).isEqualTo(400);
    HttpResponse<String> noName = post("/tools/call", "{\"arguments\":{}}");
    assertThat(noName.statusCode()).isEqualTo(400);
    assertThat(noName.body()).contains("name");
    assertThat(post("/tools/call", "{\"name\":\"echo\",\"arguments\":[1]}").statusCode())
        .isEqualTo(400);
    HttpResponse<String> unknown = post("/tools/call", "{\"name\":\"nope\"}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("nope");
    assertThat(post("/tools/call", "{\"name\":\"hidden\"}").statusCode())
        .as("a flow without mcp is not a tool")
        .isEqualTo(404);
    assertThat(get("/tasks/does-not-exist").statusCode()).isEqualTo(404);
    assertThat(get("/mesh/does-not-exist").statusCode()).isEqualTo(404);
    assertThat(get("/mesh/does-not-exist/stream").statusCode()).isEqualTo(404);
  }

  @Test
  void badReportsAreRefused() throws Exception {
    assertThat(post("/mesh/x/progress", "[").statusCode()).isEqualTo(400);
    assertThat(post("/mesh/x/progress", "{\"status\":\"received\"}").statusCode()).isEqualTo(400);
    assertThat(
            post(
                    "/mesh/x/progress",
                    "{\"prev\":[],\"curr\":\"a\",\"next\":[],\"status\":\"bogus\"}")
                .statusCode())
        .isEqualTo(400);
    assertThat(post("/mesh/x/final", "{\"status\":\"maybe\"}").statusCode()).isEqualTo(400);
    HttpResponse<String> unknownTask =
        post(
            "/mesh/unknown-task/progress",
            "{\"prev\":[],\"curr\":\"a\",\"next\":[\"b\"],\"status\":\"processing\"}");
    assertThat(unknownTask.statusCode())
        .as("progress for an unknown task is accepted")
        .isEqualTo(200);
    assertThat(Json.MAPPER.readTree(unknownTask.body()).get("progress_percent").asDouble())
        .isEqualTo(25.0);
  }

  @Test
  void aTaskFoldsFromReportsAndStreamsItsUpdates() throws Exception {
    HttpResponse<String> call =
        post("/tools/call", "{\"name\":\"pipeline\",\"arguments\":{\"text\":\"abc\"}}");
    assertThat(call.statusCode()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(call.body());
    assertThat(result.get("isError").asBoolean()).isFalse();
    JsonNode text = Json.MAPPER.readTree(result.get("content").get(0).get("text").asText());
    String id = text.get("task_id").asText();
    assertThat(text.get("status_url").asText()).isEqualTo("/tasks/" + id);
    assertThat(text.get("stream_url").asText()).isEqualTo("/stream/" + id);

    JsonNode pending = awaitTask(id, "pending");
    assertThat(pending.get("total_actors").asInt()).isEqualTo(3);

    try (SseReader live = SseReader.open(base + "/mesh/" + id + "/stream", null)) {
      assertThat(live.status()).isEqualTo(200);
      assertThat(live.contentType()).startsWith("text/event-stream");
      String[][] steps = {
        {"", "upper", "reverse,count"},
        {"upper", "reverse", "count"},
        {"upper,reverse", "count", ""}
      };
      for (String[] s : steps) {
        for (String state : List.of("received", "processing", "completed")) {
          String body =
              "{\"prev\":"
                  + list(s[0])
                  + ",\"curr\":\""
                  + s[1]
                  + "\",\"next\":"
                  + list(s[2])
                  + ",\"status\":\""
                  + state
                  + "\"}";
          assertThat(post("/mesh/" + id + "/progress", body).statusCode()).isEqualTo(200);
        }
      }
      assertThat(
              post(
                      "/mesh/" + id + "/final",
                      "{\"id\":\""
                          + id
                          + "\",\"status\":\"succeeded\",\"result\":{\"text\":\"CBA\"}}")
                  .statusCode())
          .isEqualTo(200);
      List<SseReader.Event> events = live.readUntilClosed(Duration.ofSeconds(30));
      List<SseReader.Event> updates =
          events.stream().filter(e -> e.event().equals("update")).toList();
      assertThat(updates)
          .extracting(SseReader.Event::id)
          .containsExactly("1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11");
      JsonNode last = Json.MAPPER.readTree(updates.get(updates.size() - 1).data());
      assertThat(last.get("status").asText()).isEqualTo("succeeded");
      assertThat(last.get("result").get("text").asText()).isEqualTo("CBA");
    }

    JsonNode task = awaitTask(id, "succeeded");
    assertThat(task.get("progress_percent").asDouble()).isEqualTo(100.0);
    assertThat(task.get("result").get("text").asText()).isEqualTo("CBA");
    assertThat(task.get("actors_completed").asInt()).isEqualTo(3);

    // a late client gets the replay and the stream closes; Last-Event-ID resumes after that id
    try (SseReader replay = SseReader.open(base + "/stream/" + id, "9")) {
      List<SseReader.Event> again = replay.readUntilClosed(Duration.ofSeconds(10));
      assertThat(again)
          .filteredOn(e -> e.event().equals("update"))
          .extracting(SseReader.Event::id)
          .containsExactly("10", "11");
    }
    HttpResponse<String> plain = get("/mesh/" + id + "/stream"); // no Accept header, as plain curl
    assertThat(plain.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/event-stream");
    assertThat(plain.body()).contains("event: update").contains("id: 11");
    HttpResponse<String> active = get("/mesh/" + id + "/active");
    assertThat(active.statusCode()).isEqualTo(410);
    HttpResponse<String> mesh = get("/mesh/" + id);
    // a finished task shows its route as done: every actor in prev, none current (issue 21 item 6)
    JsonNode route = Json.MAPPER.readTree(mesh.body()).get("route");
    assertThat(route.get("curr").asText()).isEmpty();
    assertThat(route.get("prev")).hasSize(3);
    assertThat(route.get("prev").get(0).asText()).isEqualTo("upper");
    assertThat(Json.MAPPER.readTree(mesh.body()).has("parent_id")).isTrue();
  }

  private static String list(String csv) {
    if (csv.isEmpty()) {
      return "[]";
    }
    return "[\"" + String.join("\",\"", csv.split(",")) + "\"]";
  }

  private static JsonNode awaitTask(String id, String status) {
    // polling a read model: no event to wait on from outside the process
    return Await.until(
        () -> {
          HttpResponse<String> r = get("/tasks/" + id);
          return r.statusCode() == 200 ? Json.MAPPER.readTree(r.body()) : null;
        },
        node -> node != null && node.get("status").asText().equals(status),
        Duration.ofSeconds(30),
        "task " + id + " " + status);
  }

  static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

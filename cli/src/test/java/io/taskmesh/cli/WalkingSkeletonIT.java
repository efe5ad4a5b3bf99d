package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The path of one task, all real: the dev stack (gateway, sidecars, Python runtimes, x-sink,
 * x-sump) with the bundled examples on a real broker and Postgres.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@ExtendWith(SharedExamples.class)
class WalkingSkeletonIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() {
    stack = SharedExamples.stack();
    base = stack.gatewayUrl();
  }

  @Test
  void echoRunsEndToEndAndStreamsEveryUpdate() throws Exception {
    String id = callTool("echo", "{\"hello\":\"world\",\"n\":[1,2]}");
    List<SseReader.Event> events;
    try (SseReader sse = SseReader.open(base + "/mesh/" + id + "/stream", null)) {
      assertThat(sse.status()).isEqualTo(200);
      events = sse.readUntilClosed(Duration.ofSeconds(60));
    }
    List<JsonNode> updates = updates(events);
    assertThat(updates.get(0).get("status").asText()).isEqualTo("pending");
    assertThat(updates)
        .extracting(u -> u.path("actor_state").asText())
        .contains("received", "processing", "completed");
    JsonNode last = updates.get(updates.size() - 1);
    assertThat(last.get("status").asText()).isEqualTo("succeeded");
    assertThat(last.get("result"))
        .isEqualTo(Json.MAPPER.readTree("{\"hello\":\"world\",\"n\":[1,2]}"));
    assertThat(events).extracting(SseReader.Event::id).doesNotContainNull().doesNotHaveDuplicates();

    JsonNode task = getJson("/tasks/" + id);
    assertThat(task.get("status").asText()).isEqualTo("succeeded");
    assertThat(task.get("progress_percent").asDouble()).isEqualTo(100.0);
    assertThat(task.get("result").get("hello").asText()).isEqualTo("world");

    try (SseReader replay = SseReader.open(base + "/stream/" + id, null)) {
      List<JsonNode> again = updates(replay.readUntilClosed(Duration.ofSeconds(10)));
      assertThat(again).isEqualTo(updates);
    }
  }

  @Test
  void threeActorPipelineTransformsTheText() throws Exception {
    String id = callTool("shout", "{\"text\":\"abc def\"}");
    try (SseReader sse = SseReader.open(base + "/stream/" + id, null)) {
      List<JsonNode> updates = updates(sse.readUntilClosed(Duration.ofSeconds(60)));
      assertThat(updates)
          .extracting(u -> u.path("actor").asText())
          .contains("upper", "reverse", "count");
      assertThat(updates).extracting(u -> u.path("progress_percent").asDouble()).isSorted();
    }
    JsonNode task = getJson("/tasks/" + id);
    assertThat(task.get("status").asText()).isEqualTo("succeeded");
    assertThat(task.get("total_actors").asInt()).isEqualTo(3);
    assertThat(task.get("result").get("text").asText()).isEqualTo("FED CBA");
    assertThat(task.get("result").get("length").asInt()).isEqualTo(7);
    assertThat(task.get("result").get("steps")).hasSize(3);
  }

  @Test
  void flyTokensReachTheStreamWhileTheHandlerRuns() throws Exception {
    String words = String.join(" ", java.util.Collections.nCopies(40, "tok"));
    String id = callTool("tokens", "{\"text\":\"" + words + "\"}");
    try (SseReader sse = SseReader.open(base + "/stream/" + id, null)) {
      List<SseReader.Event> events = sse.readUntilClosed(Duration.ofSeconds(60));
      assertThat(events)
          .filteredOn(e -> e.event().equals("partial"))
          .isNotEmpty()
          .allSatisfy(
              e ->
                  assertThat(Json.MAPPER.readTree(e.data()).get("text").asText()).isEqualTo("tok"));
      assertThat(updates(events).get(updates(events).size() - 1).get("status").asText())
          .isEqualTo("succeeded");
    }
  }

  @Test
  void meshApiAndItsConnectorRunInTheDevStack() throws Exception {
    HttpResponse<String> health =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.meshApiUrl() + "/health")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    HttpResponse<String> created =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.meshApiUrl() + "/api/v1/mesh/?actor=echo"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"payload\":{\"x\":1}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
    String id = Json.MAPPER.readTree(created.body()).get("id").asText();
    HttpResponse<String> got =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(stack.meshApiUrl() + "/api/v1/mesh/" + id))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(got.statusCode()).isEqualTo(200);
    assertThat(Json.MAPPER.readTree(got.body()).get("id").asText()).isEqualTo(id);

    // the echo actor's sidecar reports to mesh-api (x-svc-gateway-protocol: events) until terminal
    try (SseReader sse =
        SseReader.open(stack.meshApiUrl() + "/api/v1/mesh/" + id + "/events", null)) {
      List<SseReader.Event> events = sse.readUntilClosed(Duration.ofSeconds(60));
      JsonNode last =
          Json.MAPPER.readTree(
              events.stream()
                  .filter(e -> e.event().equals("status"))
                  .reduce((a, b) -> b)
                  .orElseThrow()
                  .data());
      assertThat(last.get("status").asText()).as(events.toString()).isEqualTo("succeeded");
    }
    JsonNode done =
        Json.MAPPER.readTree(
            HTTP.send(
                    HttpRequest.newBuilder(URI.create(stack.meshApiUrl() + "/api/v1/mesh/" + id))
                        .GET()
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    assertThat(done.get("status").asText()).isEqualTo("succeeded");
    JsonNode listed =
        Json.MAPPER.readTree(
            HTTP.send(
                    HttpRequest.newBuilder(
                            URI.create(stack.meshApiUrl() + "/api/v1/mesh/?status=succeeded"))
                        .GET()
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    assertThat(listed.get("messages")).extracting(m -> m.get("id").asText()).contains(id);
  }

  @Test
  void badToolCallsAnswer4xx() throws Exception {
    assertThat(post("/tools/call", "{oops").statusCode()).isEqualTo(400);
    assertThat(post("/tools/call", "{}").statusCode()).isEqualTo(400);
    assertThat(post("/tools/call", "{\"name\":\"missing\"}").statusCode()).isEqualTo(404);
  }

  @Test
  void anA2aMessageResumesATaskPausedByItsHandlerThroughTheRealXPause() throws Exception {
    JsonNode sent =
        a2a(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
                + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"r1\",\"parts\":[{\"kind\":\"text\","
                + "\"text\":\"ship it\"}]},\"metadata\":{\"skill\":\"review\"},\"configuration\":{\"blocking\":false}}}");
    String id = sent.at("/result/id").asText();
    assertThat(id).as(sent.toString()).isNotEmpty();
    // draft runs and pauses; x-pause parks the envelope and reports paused = input-required
    JsonNode paused = awaitTask(id, "input-required");
    assertThat(getJson("/tasks/" + id).get("status").asText()).isEqualTo("paused");

    // the answer resumes it (blocking: one JSON answer at the next terminal state)
    JsonNode done =
        a2a(
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"message/send\",\"params\":{\"message\":"
                + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"r2\",\"taskId\":\""
                + id
                + "\","
                + "\"parts\":[{\"kind\":\"text\",\"text\":\"yes\"}]}}}");
    assertThat(done.at("/result/status/state").asText()).as(done.toString()).isEqualTo("completed");
    JsonNode task = getJson("/tasks/" + id);
    assertThat(task.get("status").asText()).isEqualTo("succeeded");
    assertThat(task.get("result").get("draft").asText()).isEqualTo("Ship it");
    assertThat(task.get("result").get("published").asBoolean()).isTrue();
    assertThat(task.get("result").get("answer").asText()).isEqualTo("yes");
    assertThat(paused.at("/status/state").asText()).isEqualTo("input-required");
  }

  @Test
  void theInterviewAsksTwiceAndEachAnswerResumesItInItsConversation() throws Exception {
    JsonNode sent =
        a2a(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
                + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"i1\",\"contextId\":\"chat-1\",\"parts\":"
                + "[{\"kind\":\"text\",\"text\":\"colours\"}]},\"metadata\":{\"skill\":\"interview\"},"
                + "\"configuration\":{\"blocking\":false}}}");
    String id = sent.at("/result/id").asText();
    assertThat(sent.at("/result/contextId").asText()).as(sent.toString()).isEqualTo("chat-1");
    awaitTask(id, "input-required");
    JsonNode second = a2a(answer(id, "i2", "Ada", false));
    assertThat(second.at("/result/status/state").asText())
        .as(second.toString())
        .isEqualTo("working");
    // read your writes: once the answer is taken, the task no longer shows the question it answered
    JsonNode afterAnswer = a2a(taskCall("tasks/get", id));
    assertThat(afterAnswer.at("/result/status").toString())
        .as(afterAnswer.toString())
        .doesNotContain("What is your name");
    awaitTask(id, "input-required", "favourite colour");
    JsonNode done = a2a(answer(id, "i3", "blue", true));
    assertThat(done.at("/result/status/state").asText()).as(done.toString()).isEqualTo("completed");
    assertThat(done.at("/result/contextId").asText()).isEqualTo("chat-1");
    assertThat(getJson("/tasks/" + id).get("result").get("text").asText())
        .isEqualTo("Hello Ada, blue it is.");
  }

  @Test
  void aMessageNamingNoSkillRunsTheDefaultCountdownWhichCanBeCanceledWhileItRuns()
      throws Exception {
    JsonNode sent =
        a2a(
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
                + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"c1\",\"parts\":[{\"kind\":\"data\","
                + "\"data\":{\"seconds\":20}}]},\"configuration\":{\"blocking\":false}}}");
    String id = sent.at("/result/id").asText();
    assertThat(id).as(sent.toString()).isNotEmpty();
    assertThat(awaitTask(id, "working").at("/metadata/flow").asText()).isEqualTo("countdown");
    JsonNode canceled = a2a(taskCall("tasks/cancel", id));
    assertThat(canceled.at("/result/status/state").asText())
        .as(canceled.toString())
        .isEqualTo("canceled");
  }

  /** An A2A call of {@code method} on task {@code id}. */
  private static String taskCall(String method, String id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\""
        + method
        + "\",\"params\":{\"id\":\""
        + id
        + "\"}}";
  }

  private static String answer(String taskId, String messageId, String text, boolean blocking) {
    return "{\"jsonrpc\":\"2.0\",\"id\":\""
        + messageId
        + "\",\"method\":\"message/send\",\"params\":{\"message\":"
        + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\""
        + messageId
        + "\",\"taskId\":\""
        + taskId
        + "\","
        + "\"contextId\":\"chat-1\",\"parts\":[{\"kind\":\"text\",\"text\":\""
        + text
        + "\"}]},"
        + "\"configuration\":{\"blocking\":"
        + blocking
        + "}}}";
  }

  private static JsonNode a2a(String body) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/a2a/"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .timeout(Duration.ofSeconds(90))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }

  private static JsonNode awaitTask(String id, String state) {
    return awaitTask(id, state, "");
  }

  /** Waits until the task is in {@code state} with a status that mentions {@code saying}. */
  private static JsonNode awaitTask(String id, String state, String saying) {
    // the actors and the fold run asynchronously
    return Await.until(
            () -> a2a(taskCall("tasks/get", id)),
            t ->
                state.equals(t.at("/result/status/state").asText())
                    && t.at("/result/status").toString().contains(saying),
            Duration.ofSeconds(60),
            "task " + id + " never reached " + state)
        .get("result");
  }

  private static List<JsonNode> updates(List<SseReader.Event> events) {
    return events.stream()
        .filter(e -> e.event().equals("update"))
        .map(
            e -> {
              try {
                return Json.MAPPER.readTree(e.data());
              } catch (java.io.IOException ex) {
                throw new AssertionError(ex);
              }
            })
        .toList();
  }

  private static String callTool(String name, String args) throws Exception {
    HttpResponse<String> r =
        post("/tools/call", "{\"name\":\"" + name + "\",\"arguments\":" + args + "}");
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

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

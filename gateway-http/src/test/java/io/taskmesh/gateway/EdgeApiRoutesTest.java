package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The api mode's REST routes without client auth, in-process over in-memory ports: every refusal of
 * {@code /tools/call}, {@code /tasks/{id}} and {@code /stream/{id}} leaves the log and the queues
 * untouched; each route's happy path once; the mesh routes do not exist here.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeApiRoutesTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.API);
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @AfterEach
  void heal() {
    gateway.tasks.logDown(false);
    gateway.tasks.viewDown(false);
    gateway.queue.down(false);
  }

  static Stream<BadRequest> refusedToolCalls() {
    return Stream.of(
        BadRequest.post("malformed JSON", "/tools/call", "{\"name\":", 400),
        BadRequest.post("empty body", "/tools/call", "", 400),
        BadRequest.post("not an object", "/tools/call", "[\"echo\"]", 400),
        BadRequest.post("no name", "/tools/call", "{\"arguments\":{}}", 400),
        BadRequest.post("name not a string", "/tools/call", "{\"name\":7}", 400),
        BadRequest.post("blank name", "/tools/call", "{\"name\":\"  \"}", 400),
        BadRequest.post(
            "arguments not an object", "/tools/call", "{\"name\":\"echo\",\"arguments\":[1]}", 400),
        BadRequest.post(
            "argument of the wrong type",
            "/tools/call",
            "{\"name\":\"typed\",\"arguments\":{\"n\":\"x\"}}",
            400),
        BadRequest.post(
            "required argument missing",
            "/tools/call",
            "{\"name\":\"typed\",\"arguments\":{}}",
            400),
        BadRequest.post("unknown tool", "/tools/call", "{\"name\":\"nope\"}", 404),
        BadRequest.post(
            "a flow that is not a tool", "/tools/call", "{\"name\":\"skill-only\"}", 404),
        BadRequest.post("oversized body", "/tools/call", BadRequest.OVERSIZED, 413),
        new BadRequest("wrong method", "GET", "/tools/call", null, 405),
        new BadRequest("wrong method", "PUT", "/tools/call", "{\"name\":\"echo\"}", 405),
        new BadRequest("unknown task", "GET", "/tasks/no-such-task", null, 404),
        new BadRequest("wrong method", "POST", "/tasks/x", "{}", 405));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedToolCalls")
  void refusedRequestsChangeNothing(BadRequest bad) {
    String before = gateway.recorded();
    HttpResponse<String> r = gateway.send(bad.method(), bad.path(), bad.body());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(bad.status());
    if (bad.status() == 405) {
      assertThat(r.headers().firstValue("Allow"))
          .contains(bad.path().equals("/tools/call") ? "POST" : "GET");
    }
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void aToolCallAppendsTheCreatedEventThenDispatchesTheEnvelope() {
    HttpResponse<String> r =
        gateway.post("/tools/call", "{\"name\":\"typed\",\"arguments\":{\"n\":3}}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = EdgeGateway.json(r);
    assertThat(result.get("isError").asBoolean()).isFalse();
    String id = EdgeGateway.taskIdOfToolCall(r);
    assertThat(gateway.tasks.eventsOf(id))
        .extracting(TaskEvent::type)
        .containsExactly(TaskEvent.CREATED);
    Envelope sent =
        gateway.queue.dispatched().stream()
            .filter(e -> e.id().equals(id))
            .findFirst()
            .orElseThrow();
    assertThat(sent.route().curr()).isEqualTo("typed");
    assertThat(sent.payload()).isEqualTo(Json.MAPPER.createObjectNode().put("n", 3));
  }

  @Test
  void aToolCallWhoseLogIsDownAnswers500AndDispatchesNothing() {
    gateway.tasks.logDown(true);
    String before = gateway.recorded();
    HttpResponse<String> r = gateway.post("/tools/call", "{\"name\":\"echo\"}");
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("task log unavailable");
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void aToolCallWhoseQueueIsDownFailsTheTaskAtOnceWithTheReason() throws Exception {
    gateway.queue.down(true);
    int dispatched = gateway.queue.dispatched().size();
    int events = gateway.tasks.events().size();
    HttpResponse<String> r = gateway.post("/tools/call", "{\"name\":\"echo\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    String id =
        Json.MAPPER
            .readTree(EdgeGateway.json(r).get("content").get(0).get("text").asText())
            .get("task_id")
            .asText();
    // the created event goes first so a running envelope always has a task (TaskLauncher); a
    // task no actor will see fails at once instead of waiting for its deadline
    assertThat(gateway.tasks.events()).hasSize(events + 2);
    assertThat(gateway.queue.dispatched()).hasSize(dispatched);
    JsonNode task = EdgeGateway.json(gateway.get("/tasks/" + id));
    assertThat(task.get("status").asText()).isEqualTo(TaskStatus.FAILED.wire());
    assertThat(task.get("error").asText()).contains("dispatch failed", "in-memory queue is down");
  }

  @Test
  void aTaskReadsAsTheFoldMadeIt() {
    String id = gateway.seedTask("api-read", null);
    gateway.tasks.append(
        TaskEvent.finished(
            id,
            FinalReport.succeeded(
                id, Json.MAPPER.createObjectNode().put("ok", 1), "upper", Map.of())));
    HttpResponse<String> r = gateway.get("/tasks/" + id);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode task = EdgeGateway.json(r);
    assertThat(task.get("id").asText()).isEqualTo(id);
    assertThat(task.get("status").asText()).isEqualTo(TaskStatus.SUCCEEDED.wire());
    assertThat(task.get("result").get("ok").asInt()).isEqualTo(1);
    assertThat(task.get("total_actors").asInt()).isEqualTo(2);
  }

  @Test
  void readsWhileTheViewMovesAnswer503WithRetryAfter() {
    String id = gateway.seedTask("api-moving", null);
    gateway.tasks.viewDown(true);
    for (String path : List.of("/tasks/" + id, "/stream/" + id)) {
      HttpResponse<String> r = gateway.get(path);
      assertThat(r.statusCode()).as(path).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).as(path).hasValue("1");
    }
  }

  @Test
  void aStreamReplaysTheHistoryThenFollowsLiveUpdatesUntilTheFinalOne() throws Exception {
    String id = gateway.seedTask("api-stream", null);
    try (SseReader stream = SseReader.open(gateway.url("/stream/" + id), null)) {
      assertThat(stream.status()).isEqualTo(200);
      // the feed subscription is made before the answer's headers: nothing appended now is missed
      SseReader.Event created = stream.next(WAIT);
      assertThat(created.event()).isEqualTo("update");
      assertThat(created.id()).isEqualTo("1");
      gateway.fly.publish(
          id, Json.MAPPER.createObjectNode().put("type", "partial").put("text", "hel"));
      assertThat(stream.next(WAIT).event()).isEqualTo("partial");
      gateway.tasks.append(
          TaskEvent.finished(id, FinalReport.failed(id, "boom", "echo", Map.of())));
      List<SseReader.Event> rest = stream.readUntilClosed(WAIT);
      assertThat(rest).extracting(SseReader.Event::id).containsExactly("2");
      assertThat(Json.MAPPER.readTree(rest.get(0).data()).get("status").asText())
          .isEqualTo(TaskStatus.FAILED.wire());
    }
  }

  @Test
  void healthAndTheDocumentAnswer() {
    assertThat(gateway.get("/health").body()).isEqualTo("OK");
    HttpResponse<String> doc = gateway.get("/openapi.json");
    assertThat(doc.statusCode()).isEqualTo(200);
    assertThat(doc.body().getBytes(StandardCharsets.UTF_8)).isEqualTo(ApiDocument.openApiJson());
  }

  @Test
  void internalRoutesAreOpenWhileClientsDoNotAuthenticate() {
    String id = gateway.seedTask("api-internal", null);
    assertThat(gateway.get("/internal/tasks/" + id).statusCode()).isEqualTo(200);
    assertThat(gateway.get("/internal/tasks/no-such-task").statusCode()).isEqualTo(404);
    JsonNode listed = EdgeGateway.json(gateway.get("/internal/tasks"));
    assertThat(listed.isArray()).isTrue();
    assertThat(listed.findValuesAsText("id")).contains(id);
  }

  @Test
  void meshRoutesDoNotExistInApiMode() {
    String id = gateway.seedTask("api-no-mesh", null);
    String before = gateway.recorded();
    for (String route :
        List.of(
            "GET /mesh/" + id,
            "GET /mesh/" + id + "/stream",
            "GET /mesh/" + id + "/active",
            "POST /mesh/" + id + "/progress",
            "POST /mesh/" + id + "/final",
            "POST /mesh/" + id + "/fly",
            "POST /mesh",
            "POST /mesh/config-reload")) {
      String[] mp = route.split(" ");
      assertThat(gateway.status(mp[0], mp[1], mp[0].equals("POST") ? "{}" : null))
          .as(route)
          .isEqualTo(404);
    }
    // the mesh's child-task create is not served; the path itself is the api mode's task listing
    assertThat(gateway.status("POST", "/tasks", "{}")).as("POST /tasks").isEqualTo(405);
    assertThat(gateway.recorded()).isEqualTo(before);
  }
}

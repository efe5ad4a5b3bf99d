package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code POST /a2a/} in-process over in-memory ports, auth off: bad JSON-RPC input answers the
 * JSON-RPC error object (parse error, invalid request, method not found, invalid params and the A2A
 * codes) with the request's id and changes nothing; each method's happy path once.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeA2aTest {
  private static final String NO_ID = null;
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.API);
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  /**
   * A bad JSON-RPC body, the error code it earns, and the id the answer must echo (null: none
   * readable).
   */
  record BadCall(String why, String body, int code, String id) {
    @Override
    public String toString() {
      return why + " -> " + code;
    }
  }

  static Stream<BadCall> badCalls() {
    return Stream.of(
        new BadCall("malformed JSON", "{\"jsonrpc\":\"2.0\",", -32700, NO_ID),
        new BadCall("empty body", "", -32700, NO_ID),
        new BadCall("a batch", "[" + A2aCalls.call("tasks/list", "{}") + "]", -32600, NO_ID),
        new BadCall("not an object", "\"tasks/get\"", -32600, NO_ID),
        new BadCall("no jsonrpc", "{\"id\":\"a\",\"method\":\"tasks/list\"}", -32600, "a"),
        new BadCall(
            "jsonrpc 1.0",
            "{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"tasks/list\"}",
            -32600,
            "a"),
        new BadCall(
            "id of the wrong type",
            "{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"tasks/list\"}",
            -32600,
            NO_ID),
        new BadCall("no method", "{\"jsonrpc\":\"2.0\",\"id\":\"a\"}", -32600, "a"),
        new BadCall(
            "method of the wrong type",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":5}",
            -32600,
            "a"),
        new BadCall(
            "unknown method", A2aCalls.call("tasks/explode", "{}"), -32601, "tasks/explode"),
        new BadCall(
            "params not an object",
            "{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tasks/get\",\"params\":[1]}",
            -32602,
            "a"),
        new BadCall(
            "send without a message", A2aCalls.call("message/send", "{}"), -32602, "message/send"),
        new BadCall(
            "send with a message that is not a user's",
            A2aCalls.call(
                "message/send",
                A2aCalls.sendParams("m", "hi", false).replace("\"user\"", "\"agent\"")),
            -32602,
            "message/send"),
        new BadCall(
            "send without parts",
            A2aCalls.call(
                "message/send",
                "{\"message\":{\"role\":\"user\",\"messageId\":\"m\"},\"metadata\":{\"skill\":\"echo\"}}"),
            -32602,
            "message/send"),
        new BadCall(
            "send naming no skill while there are two",
            A2aCalls.call(
                "message/send",
                A2aCalls.sendParams("m", "hi", false)
                    .replace(",\"metadata\":{\"skill\":\"echo\"}", "")),
            -32602,
            "message/send"),
        new BadCall(
            "send to an unknown skill",
            A2aCalls.call(
                "message/send",
                A2aCalls.sendParams("m", "hi", false)
                    .replace("\"skill\":\"echo\"", "\"skill\":\"nope\"")),
            -32602,
            "message/send"),
        new BadCall(
            "blocking of the wrong type",
            A2aCalls.call(
                "message/send",
                A2aCalls.sendParams("m", "hi", false)
                    .replace("\"blocking\":false", "\"blocking\":\"no\"")),
            -32602,
            "message/send"),
        new BadCall(
            "a file part",
            A2aCalls.call(
                "message/send",
                A2aCalls.sendParams("m", "hi", false)
                    .replace(
                        "{\"kind\":\"text\",\"text\":\"hi\"}",
                        "{\"kind\":\"file\",\"file\":{\"uri\":\"http://x/f\"}}")),
            -32005,
            "message/send"),
        new BadCall("get without id", A2aCalls.call("tasks/get", "{}"), -32602, "tasks/get"),
        new BadCall(
            "get with a negative historyLength",
            A2aCalls.call("tasks/get", "{\"id\":\"x\",\"historyLength\":-1}"),
            -32602,
            "tasks/get"),
        new BadCall(
            "get of an unknown task",
            A2aCalls.call("tasks/get", "{\"id\":\"no-such-task\"}"),
            -32001,
            "tasks/get"),
        new BadCall(
            "list with pageSize 0",
            A2aCalls.call("tasks/list", "{\"pageSize\":0}"),
            -32602,
            "tasks/list"),
        new BadCall(
            "list with pageSize of the wrong type",
            A2aCalls.call("tasks/list", "{\"pageSize\":\"2\"}"),
            -32602,
            "tasks/list"),
        new BadCall(
            "list with a forged page token",
            A2aCalls.call("tasks/list", "{\"pageToken\":\"bm9wZQ\"}"),
            -32602,
            "tasks/list"),
        new BadCall(
            "list with an unknown status",
            A2aCalls.call("tasks/list", "{\"status\":\"sleeping\"}"),
            -32602,
            "tasks/list"),
        new BadCall(
            "cancel of an unknown task",
            A2aCalls.call("tasks/cancel", "{\"id\":\"no-such-task\"}"),
            -32001,
            "tasks/cancel"),
        new BadCall(
            "push config of an unknown task",
            A2aCalls.call("tasks/pushNotificationConfig/get", "{\"id\":\"no-such-task\"}"),
            -32001,
            "tasks/pushNotificationConfig/get"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badCalls")
  void badInputAnswersTheJsonRpcErrorAndChangesNothing(BadCall bad) {
    String before = gateway.recorded();
    HttpResponse<String> r = gateway.post("/a2a/", bad.body(), "Accept", "application/json");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode answer = EdgeGateway.json(r);
    assertThat(answer.get("jsonrpc").asText()).isEqualTo("2.0");
    assertThat(answer.has("result")).isFalse();
    assertThat(answer.get("error").get("code").asInt()).as(r.body()).isEqualTo(bad.code());
    assertThat(answer.get("error").get("message").asText()).isNotBlank();
    if (bad.code() == -32602) {
      assertThat(answer.get("error").get("message").asText())
          .as("a params error names the field")
          .containsPattern("'[A-Za-z][A-Za-z0-9.\\[\\]]*'");
    }
    if (bad.id() == null) {
      assertThat(answer.get("id").isNull()).as(r.body()).isTrue();
    } else {
      assertThat(answer.get("id").asText()).isEqualTo(bad.id());
    }
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void aBodyOverTheLimitIsAJsonRpcInvalidRequest() {
    String before = gateway.recorded();
    HttpResponse<String> r =
        gateway.post("/a2a/", BadRequest.OVERSIZED, "Accept", "application/json");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode answer = EdgeGateway.json(r);
    assertThat(answer.get("error").get("code").asInt()).isEqualTo(-32600);
    assertThat(answer.get("error").get("message").asText()).contains("too large");
    assertThat(answer.get("id").isNull()).isTrue();
    HttpResponse<String> wrongMethod = gateway.get("/a2a/");
    assertThat(wrongMethod.statusCode()).isEqualTo(405);
    assertThat(wrongMethod.headers().firstValue("Allow")).contains("POST");
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void theAgentCardListsTheSkillsAndNoSecurityWhileAuthIsOff() {
    for (String path : List.of("/.well-known/agent.json", "/.well-known/agent-card.json")) {
      JsonNode card = EdgeGateway.json(gateway.get(path));
      assertThat(card.get("skills").findValuesAsText("id"))
          .as(path)
          .containsExactly("echo", "skill-only");
      assertThat(card.get("url").asText()).endsWith("/a2a/");
      assertThat(card.has("securitySchemes")).as(path).isFalse();
      assertThat(card.has("security")).as(path).isFalse();
      assertThat(card.get("capabilities").get("extendedAgentCard").asBoolean()).isFalse();
      assertThat(card.get("supportsAuthenticatedExtendedCard").asBoolean()).isFalse();
      assertThat(card.get("skills").get(0).get("description").asText())
          .contains("metadata.skill")
          .contains("has none")
          .contains("a2a: {default: true}");
    }
    for (String method :
        List.of("agent/getAuthenticatedExtendedCard", "agent/authenticatedExtendedCard")) {
      JsonNode extended = EdgeGateway.json(gateway.post("/a2a/", A2aCalls.call(method, "{}")));
      assertThat(extended.get("error").get("code").asInt()).as(method).isEqualTo(-32007);
    }
  }

  @Test
  void withAnApiKeyTheCardDeclaresThatSchemeOnlyAndServesTheExtendedCard() throws Exception {
    try (EdgeGateway keyed =
        EdgeGateway.start(GatewayMode.API, Map.of("SVC_A2A_API_KEY", "k-edge"))) {
      JsonNode card = EdgeGateway.json(keyed.get("/.well-known/agent-card.json"));
      assertThat(card.get("securitySchemes").fieldNames()).toIterable().containsExactly("apiKey");
      assertThat(card.get("security").toString()).isEqualTo("[{\"apiKey\":[]}]");
      assertThat(card.get("capabilities").get("extendedAgentCard").asBoolean()).isTrue();
      assertThat(card.get("supportsAuthenticatedExtendedCard").asBoolean()).isTrue();
      JsonNode extended =
          EdgeGateway.json(
              keyed.post(
                  "/a2a/",
                  A2aCalls.call("agent/getAuthenticatedExtendedCard", "{}"),
                  "X-API-Key",
                  "k-edge"));
      assertThat(extended.get("result").get("skills").size()).as(extended.toString()).isEqualTo(2);
    }
  }

  @Test
  void severalSkillsAndNoDefaultNamesTheSkillsAndHowToSetADefault() {
    JsonNode answer =
        EdgeGateway.json(
            gateway.post(
                "/a2a/",
                A2aCalls.call(
                    "message/send",
                    A2aCalls.sendParams("m-noskill", "hi", false)
                        .replace(",\"metadata\":{\"skill\":\"echo\"}", ""))));
    assertThat(answer.get("error").get("code").asInt()).isEqualTo(-32602);
    assertThat(answer.get("error").get("message").asText())
        .contains("echo", "skill-only", "metadata.skill", "a2a: {default: true}");
  }

  @Test
  void aMessageNamingNoSkillRunsTheDefaultAndANamedSkillStillWins() throws Exception {
    String flows =
        """
        flows:
          - {name: echo, entrypoint: echo, a2a: {}}
          - {name: chat, entrypoint: chat, a2a: {default: true}}
        """;
    try (EdgeGateway withDefault = EdgeGateway.start(GatewayMode.API, Map.of(), flows)) {
      String unnamed =
          A2aCalls.call(
              "message/send",
              A2aCalls.sendParams("m-default", "hi", false)
                  .replace(",\"metadata\":{\"skill\":\"echo\"}", ""));
      String id =
          EdgeGateway.json(withDefault.post("/a2a/", unnamed)).get("result").get("id").asText();
      assertThat(withDefault.queue.dispatched())
          .filteredOn(e -> e.id().equals(id))
          .singleElement()
          .satisfies(e -> assertThat(e.route().curr()).isEqualTo("chat"));

      String named =
          EdgeGateway.json(withDefault.post("/a2a/", A2aCalls.send("m-named", "hi", false)))
              .get("result")
              .get("id")
              .asText();
      assertThat(withDefault.queue.dispatched())
          .filteredOn(e -> e.id().equals(named))
          .singleElement()
          .satisfies(e -> assertThat(e.route().curr()).isEqualTo("echo"));

      JsonNode skills =
          EdgeGateway.json(withDefault.get("/.well-known/agent-card.json")).get("skills");
      assertThat(skills.get(0).get("description").asText()).contains("the default skill, chat");
      assertThat(skills.get(1).get("description").asText()).contains("This is the default skill");
    }
  }

  @Test
  void theClientsContextIdIsKeptAndFiltersTheList() {
    String inContext =
        A2aCalls.sendParams("m-ctx", "hi", false)
            .replace(
                "\"messageId\":\"m-ctx\"", "\"messageId\":\"m-ctx\",\"contextId\":\"conv-edge-1\"");
    JsonNode task =
        EdgeGateway.json(gateway.post("/a2a/", A2aCalls.call("message/send", inContext)))
            .get("result");
    String id = task.get("id").asText();
    assertThat(task.get("contextId").asText()).isEqualTo("conv-edge-1");
    assertThat(gateway.tasks.get(id).orElseThrow().contextId()).isEqualTo("conv-edge-1");
    String other =
        EdgeGateway.json(gateway.post("/a2a/", A2aCalls.send("m-ctx-other", "hi", false)))
            .get("result")
            .get("id")
            .asText();
    assertThat(
            EdgeGateway.json(
                    gateway.post("/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + other + "\"}")))
                .get("result")
                .get("contextId")
                .asText())
        .as("no contextId: the task is its own context")
        .isEqualTo(other);

    JsonNode page =
        EdgeGateway.json(
                gateway.post(
                    "/a2a/", A2aCalls.call("tasks/list", "{\"contextId\":\"conv-edge-1\"}")))
            .get("result");
    assertThat(page.get("tasks").findValuesAsText("id")).containsExactly(id);
  }

  @Test
  void aTaskCreatedBeforeContextsWereKeptIsItsOwnContext() {
    String id = "a2a-old-event";
    gateway.tasks.append(
        TaskEvent.created(
            id,
            new TaskEvent.Created(
                "echo",
                Route.start("echo", List.of()),
                Json.MAPPER.createObjectNode(),
                null,
                null,
                null,
                null)));
    JsonNode got =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + id + "\"}")));
    assertThat(got.get("result").get("contextId").asText()).isEqualTo(id);
  }

  @Test
  void aNonBlockingSendStartsTheSkillsFlowAndAnswersTheTask() {
    JsonNode task =
        EdgeGateway.json(gateway.post("/a2a/", A2aCalls.send("m-send", "hello", false)))
            .get("result");
    String id = task.get("id").asText();
    assertThat(task.get("kind").asText()).isEqualTo("task");
    assertThat(task.get("status").get("state").asText()).isEqualTo("submitted");
    Envelope sent =
        gateway.queue.dispatched().stream()
            .filter(e -> e.id().equals(id))
            .findFirst()
            .orElseThrow();
    assertThat(sent.route().curr()).isEqualTo("echo");
    assertThat(sent.payload().toString()).contains("hello");

    JsonNode got =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + id + "\"}")));
    assertThat(got.get("result").get("id").asText()).isEqualTo(id);
  }

  @Test
  void aStreamedSendFollowsTheTaskToItsEnd() {
    int before = gateway.queue.dispatched().size();
    HttpResponse<Stream<String>> r =
        openStream(A2aCalls.call("message/stream", A2aCalls.sendParams("m-stream", "hi", true)));
    assertThat(r.statusCode()).isEqualTo(200);
    Iterator<String> lines = r.body().iterator();
    JsonNode first = nextData(lines);
    assertThat(first.get("result").get("status").get("state").asText()).isEqualTo("submitted");
    // the first event is written only once the feed subscription exists, so nothing below is missed
    String id = gateway.queue.dispatched().get(before).id();
    gateway.tasks.append(
        TaskEvent.finished(
            id,
            FinalReport.succeeded(
                id, Json.MAPPER.createObjectNode().put("v", 1), "upper", Map.of())));
    List<JsonNode> rest = new ArrayList<>();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("data:")) {
        rest.add(parse(line.substring(5)));
      }
    }
    JsonNode last = rest.get(rest.size() - 1).get("result");
    assertThat(last.get("status").get("state").asText()).isEqualTo("completed");
    assertThat(last.get("final").asBoolean()).isTrue();
  }

  @Test
  void listPagesOverTheCallersTasks() {
    gateway.post("/a2a/", A2aCalls.send("m-list-1", "a", false));
    gateway.post("/a2a/", A2aCalls.send("m-list-2", "b", false));
    JsonNode page =
        EdgeGateway.json(gateway.post("/a2a/", A2aCalls.call("tasks/list", "{\"pageSize\":1}")))
            .get("result");
    assertThat(page.get("tasks")).hasSize(1);
    assertThat(page.get("totalSize").asInt()).isGreaterThanOrEqualTo(2);
    String token = page.get("nextPageToken").asText();
    JsonNode next =
        EdgeGateway.json(
                gateway.post(
                    "/a2a/",
                    A2aCalls.call(
                        "tasks/list", "{\"pageSize\":1,\"pageToken\":\"" + token + "\"}")))
            .get("result");
    assertThat(next.get("tasks").get(0).get("id").asText())
        .isNotEqualTo(page.get("tasks").get(0).get("id").asText());
  }

  @Test
  void cancelEndsAnOpenTaskAndRefusesAFinishedOne() {
    String open = gateway.seedTask("a2a-cancel-open", null);
    JsonNode canceled =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/cancel", "{\"id\":\"" + open + "\"}")));
    assertThat(canceled.get("result").get("status").get("state").asText()).isEqualTo("canceled");
    assertThat(gateway.tasks.get(open).orElseThrow().status()).isEqualTo(TaskStatus.CANCELED);

    String done = gateway.seedTask("a2a-cancel-done", null);
    gateway.tasks.append(
        TaskEvent.finished(done, FinalReport.succeeded(done, null, "upper", Map.of())));
    String before = gateway.recorded();
    JsonNode refused =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/cancel", "{\"id\":\"" + done + "\"}")));
    assertThat(refused.get("error").get("code").asInt()).isEqualTo(-32002);
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void aNonBlockingAnswerToAPausedTaskComesOnceTheTaskNoLongerShowsThePause() throws Exception {
    String id = gateway.seedTask("a2a-paused-lag", null);
    gateway.tasks.append(TaskEvent.paused(id, FinalReport.paused(id, "x-pause", Map.of())));
    // the fold lags behind the log for a moment, as the real one does after each append
    gateway.tasks.foldLater(true);
    ScheduledExecutorService fold = Executors.newSingleThreadScheduledExecutor();
    try {
      fold.schedule(gateway.tasks::foldHeld, 300, TimeUnit.MILLISECONDS);
      JsonNode answer =
          EdgeGateway.json(
              gateway.post("/a2a/", A2aCalls.call("message/send", resumeParams("m-lag", id))));
      // as a client does next: had the answer come before the fold, this read the pause and the
      // client would answer the same question again
      JsonNode got =
          EdgeGateway.json(
              gateway.post("/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + id + "\"}")));
      assertThat(answer.at("/result/status/state").asText()).isEqualTo("working");
      assertThat(got.at("/result/status/state").asText()).as(got.toString()).isEqualTo("working");
    } finally {
      fold.shutdownNow();
      gateway.tasks.foldHeld();
    }
  }

  @Test
  void aMessageToAPausedTaskResumesIt() {
    String id = gateway.seedTask("a2a-paused", null);
    gateway.tasks.append(TaskEvent.paused(id, FinalReport.paused(id, "x-pause", Map.of())));
    JsonNode answer =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("message/send", resumeParams("m-resume", id))));
    assertThat(answer.get("result").get("status").get("state").asText())
        .as(answer.toString())
        .isEqualTo("working");
    assertThat(gateway.tasks.get(id).orElseThrow().status()).isEqualTo(TaskStatus.RUNNING);
    assertThat(gateway.queue.resumed())
        .anySatisfy(
            r -> {
              assertThat(r.envelopeId()).isEqualTo(id);
              assertThat(r.namespace()).isEqualTo(EdgeGateway.NAMESPACE);
            });

    String before = gateway.recorded();
    JsonNode again =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("message/send", resumeParams("m-again", id))));
    assertThat(again.get("error").get("code").asInt())
        .as("a running task takes no message")
        .isEqualTo(-32004);
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void aTaskThatAsksForInputTwiceIsResumedEachTime() {
    String id = gateway.seedTask("a2a-two-questions", null);
    for (int turn = 1; turn <= 2; turn++) {
      gateway.tasks.append(TaskEvent.paused(id, FinalReport.paused(id, "x-pause", Map.of())));
      String messageId = "m-turn-" + turn;
      JsonNode answer =
          EdgeGateway.json(
              gateway.post(
                  "/a2a/",
                  A2aCalls.call(
                      "message/send",
                      A2aCalls.sendParams(messageId, "answer " + turn, false)
                          .replace(
                              "\"messageId\":\"" + messageId + "\"",
                              "\"messageId\":\""
                                  + messageId
                                  + "\",\"taskId\":\""
                                  + id
                                  + "\",\"contextId\":\""
                                  + id
                                  + "\""))));
      assertThat(answer.get("result").get("status").get("state").asText())
          .as(answer.toString())
          .isEqualTo("working");
    }
    assertThat(gateway.queue.resumed()).filteredOn(r -> r.envelopeId().equals(id)).hasSize(2);
  }

  @Test
  void aFollowUpInAnotherContextThanItsTaskIsRefusedNamingTheField() {
    String id = gateway.seedTask("a2a-wrong-context", null);
    gateway.tasks.append(TaskEvent.paused(id, FinalReport.paused(id, "x-pause", Map.of())));
    String before = gateway.recorded();
    JsonNode answer =
        EdgeGateway.json(
            gateway.post(
                "/a2a/",
                A2aCalls.call(
                    "message/send",
                    A2aCalls.sendParams("m-wrong-ctx", "x", false)
                        .replace(
                            "\"messageId\":\"m-wrong-ctx\"",
                            "\"messageId\":\"m-wrong-ctx\",\"taskId\":\""
                                + id
                                + "\",\"contextId\":\"elsewhere\""))));
    assertThat(answer.get("error").get("code").asInt()).isEqualTo(-32602);
    assertThat(answer.get("error").get("message").asText()).contains("message.contextId");
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  private static HttpResponse<Stream<String>> openStream(String body) {
    try {
      return HttpClient.newHttpClient()
          .send(
              gateway.request("POST", "/a2a/", body).header("Accept", "text/event-stream").build(),
              HttpResponse.BodyHandlers.ofLines());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode nextData(Iterator<String> lines) {
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.startsWith("data:")) {
        return parse(line.substring(5));
      }
    }
    throw new AssertionError("the stream ended before a data line");
  }

  private static JsonNode parse(String json) {
    try {
      return Json.MAPPER.readTree(json);
    } catch (IOException e) {
      throw new AssertionError("not JSON: " + json, e);
    }
  }

  /** message/send params that answer task {@code taskId} with "more", not blocking. */
  private static String resumeParams(String messageId, String taskId) {
    return A2aCalls.sendParams(messageId, "more", false)
        .replace(
            "\"messageId\":\"" + messageId + "\"",
            "\"messageId\":\"" + messageId + "\",\"taskId\":\"" + taskId + "\"");
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A2A 1.0 in-process over in-memory ports, auth off: each method on JSON-RPC ({@code POST /a2a/v1})
 * and on the HTTP+JSON binding, the 1.0 objects and error model, the A2A-Version header, and that a
 * task is the same task on 1.0 and on 0.3.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeA2aV1Test {
  private static final String[] V1 = {"A2A-Version", "1.0", "Accept", "application/json"};
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    // push targets on loopback are refused unless allowed; these tests never deliver
    gateway = EdgeGateway.start(GatewayMode.API, Map.of("SVC_A2A_PUSH_ALLOW_PRIVATE", "true"));
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  private static String rpc(String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":\""
        + method
        + "\",\"method\":\""
        + method
        + "\",\"params\":"
        + params
        + "}";
  }

  private static String sendRequest(String messageId, String text, boolean returnImmediately) {
    return "{\"message\":{\"role\":\"ROLE_USER\",\"messageId\":\""
        + messageId
        + "\",\"taskId\":\"\",\"contextId\":\"\","
        + "\"parts\":[{\"text\":\""
        + text
        + "\"}],\"metadata\":{\"skill\":\"echo\"}},"
        + "\"configuration\":{\"returnImmediately\":"
        + returnImmediately
        + "}}";
  }

  private static JsonNode call(String method, String params) {
    HttpResponse<String> r = gateway.post("/a2a/v1", rpc(method, params), V1);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return EdgeGateway.json(r);
  }

  private static JsonNode result(String method, String params) {
    JsonNode answer = call(method, params);
    assertThat(answer.has("error")).as(answer.toString()).isFalse();
    return answer.get("result");
  }

  private static void assertNoKind(JsonNode node) {
    assertThat(node.findValues("kind")).as(node.toString()).isEmpty();
  }

  @Test
  void sendMessageOnJsonRpcAnswersTheOnePointZeroTaskAndItIsTheSameTaskOnZeroPointThree() {
    JsonNode task = result("SendMessage", sendRequest("v1-send", "hello", true)).get("task");
    String id = task.get("id").asText();
    assertThat(task.at("/status/state").asText()).isEqualTo("TASK_STATE_SUBMITTED");
    assertNoKind(task);
    assertThat(
            gateway.queue.dispatched().stream()
                .anyMatch(e -> e.id().equals(id) && e.payload().toString().contains("hello")))
        .isTrue();

    JsonNode got = result("GetTask", "{\"id\":\"" + id + "\",\"historyLength\":5}");
    assertThat(got.get("id").asText()).isEqualTo(id);
    assertThat(got.at("/history/0/role").asText()).isEqualTo("ROLE_USER");
    assertThat(got.at("/history/0/parts").toString()).contains("hello");
    assertNoKind(got);
    JsonNode old =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + id + "\"}")));
    assertThat(old.at("/result/id").asText()).isEqualTo(id);
    assertThat(old.at("/result/status/state").asText()).isEqualTo("submitted");
  }

  @Test
  void sendMessageOnHttpJsonAndGetTaskByPath() {
    HttpResponse<String> r =
        gateway.post("/a2a/v1/message:send", sendRequest("v1-rest", "hi", true), V1);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode task = EdgeGateway.json(r).get("task");
    String id = task.get("id").asText();
    assertThat(task.at("/status/state").asText()).isEqualTo("TASK_STATE_SUBMITTED");
    JsonNode got = EdgeGateway.json(gateway.get("/a2a/v1/tasks/" + id + "?historyLength=0", V1));
    assertThat(got.get("id").asText()).isEqualTo(id);
    assertThat(got.has("history")).isFalse();
  }

  @Test
  void listTasksOnBothBindingsFiltersByOnePointZeroStateNames() {
    result("SendMessage", sendRequest("v1-list", "a", true));
    JsonNode page = result("ListTasks", "{\"status\":\"TASK_STATE_SUBMITTED\",\"pageSize\":50}");
    assertThat(page.get("tasks").size()).isPositive();
    page.get("tasks")
        .forEach(t -> assertThat(t.at("/status/state").asText()).isEqualTo("TASK_STATE_SUBMITTED"));
    assertThat(page.has("nextPageToken")).isTrue();
    JsonNode rest =
        EdgeGateway.json(gateway.get("/a2a/v1/tasks?status=TASK_STATE_COMPLETED&pageSize=5", V1));
    rest.get("tasks")
        .forEach(t -> assertThat(t.at("/status/state").asText()).isEqualTo("TASK_STATE_COMPLETED"));
    assertThat(rest.get("pageSize").asInt()).isEqualTo(5);
  }

  @Test
  void cancelTaskOnBothBindingsAndTheNotCancelableError() {
    String viaRpc = gateway.seedTask("v1-cancel-rpc", null);
    assertThat(result("CancelTask", "{\"id\":\"" + viaRpc + "\"}").at("/status/state").asText())
        .isEqualTo("TASK_STATE_CANCELED");
    String viaRest = gateway.seedTask("v1-cancel-rest", null);
    HttpResponse<String> r = gateway.post("/a2a/v1/tasks/" + viaRest + ":cancel", "", V1);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(EdgeGateway.json(r).at("/status/state").asText()).isEqualTo("TASK_STATE_CANCELED");

    JsonNode again = call("CancelTask", "{\"id\":\"" + viaRpc + "\"}").get("error");
    assertThat(again.get("code").asInt()).isEqualTo(-32002);
    assertThat(again.at("/data/0/reason").asText()).isEqualTo("TASK_NOT_CANCELABLE");
    HttpResponse<String> restAgain = gateway.post("/a2a/v1/tasks/" + viaRest + ":cancel", "", V1);
    assertThat(restAgain.statusCode()).isEqualTo(409);
    assertThat(EdgeGateway.json(restAgain).at("/error/details/0/reason").asText())
        .isEqualTo("TASK_NOT_CANCELABLE");
  }

  @Test
  void sendStreamingMessageStreamsStreamResponsesToTheEnd() {
    int before = gateway.queue.dispatched().size();
    List<JsonNode> events =
        stream(
            "/a2a/v1",
            rpc("SendStreamingMessage", sendRequest("v1-stream", "s", false)),
            () -> {
              String id = gateway.queue.dispatched().get(before).id();
              gateway.tasks.append(
                  TaskEvent.finished(
                      id,
                      FinalReport.succeeded(
                          id, Json.MAPPER.createObjectNode().put("v", 1), "upper", Map.of())));
            });
    assertThat(events.get(0).at("/result/task/status/state").asText())
        .isEqualTo("TASK_STATE_SUBMITTED");
    JsonNode last = events.get(events.size() - 1).get("result");
    assertThat(last.at("/statusUpdate/status/state").asText()).isEqualTo("TASK_STATE_COMPLETED");
    assertThat(last.get("statusUpdate").has("final")).isFalse();
    events.forEach(EdgeA2aV1Test::assertNoKind);
  }

  @Test
  void subscribeToTaskOnHttpJsonStreamsAndRefusesATerminalTask() {
    String id = gateway.seedTask("v1-subscribe", null);
    List<JsonNode> events =
        stream(
            "/a2a/v1/tasks/" + id + ":subscribe",
            "",
            () ->
                gateway.tasks.append(
                    TaskEvent.finished(
                        id,
                        FinalReport.succeeded(
                            id, Json.MAPPER.createObjectNode(), "upper", Map.of()))));
    assertThat(events.get(0).at("/task/id").asText()).isEqualTo(id);
    assertThat(events.get(events.size() - 1).at("/statusUpdate/status/state").asText())
        .isEqualTo("TASK_STATE_COMPLETED");

    JsonNode refused = call("SubscribeToTask", "{\"id\":\"" + id + "\"}");
    assertThat(refused.at("/error/code").asInt()).as(refused.toString()).isEqualTo(-32004);
    HttpResponse<String> r = gateway.post("/a2a/v1/tasks/" + id + ":subscribe", "", V1);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(EdgeGateway.json(r).at("/error/details/0/reason").asText())
        .isEqualTo("UNSUPPORTED_OPERATION");
  }

  @Test
  void pushConfigMethodsOnBothBindings() {
    String id = gateway.seedTask("v1-push", null);
    JsonNode created =
        result(
            "CreateTaskPushNotificationConfig",
            "{\"taskId\":\""
                + id
                + "\",\"id\":\"c1\",\"url\":\"http://127.0.0.1:9/a2a\",\"token\":\"t\"}");
    assertThat(created.get("taskId").asText()).isEqualTo(id);
    assertThat(created.get("url").asText()).isEqualTo("http://127.0.0.1:9/a2a");
    assertThat(created.get("id").asText()).isEqualTo("c1");
    assertThat(
            result("GetTaskPushNotificationConfig", "{\"taskId\":\"" + id + "\",\"id\":\"c1\"}")
                .get("url")
                .asText())
        .isEqualTo("http://127.0.0.1:9/a2a");
    HttpResponse<String> rest =
        gateway.post(
            "/a2a/v1/tasks/" + id + "/pushNotificationConfigs",
            "{\"id\":\"c2\",\"url\":\"http://127.0.0.1:9/other\"}",
            V1);
    assertThat(rest.statusCode()).as(rest.body()).isEqualTo(200);
    JsonNode listed =
        EdgeGateway.json(gateway.get("/a2a/v1/tasks/" + id + "/pushNotificationConfigs", V1));
    assertThat(listed.get("configs").findValuesAsText("id")).containsExactlyInAnyOrder("c1", "c2");
    assertThat(
            EdgeGateway.json(gateway.get("/a2a/v1/tasks/" + id + "/pushNotificationConfigs/c2", V1))
                .get("url")
                .asText())
        .isEqualTo("http://127.0.0.1:9/other");
    assertThat(
            gateway
                .send("DELETE", "/a2a/v1/tasks/" + id + "/pushNotificationConfigs/c2", null, V1)
                .statusCode())
        .isEqualTo(200);
    assertThat(
            result("DeleteTaskPushNotificationConfig", "{\"taskId\":\"" + id + "\",\"id\":\"c1\"}")
                .isObject())
        .isTrue();
    assertThat(
            result("ListTaskPushNotificationConfigs", "{\"taskId\":\"" + id + "\"}").get("configs"))
        .isEmpty();
  }

  @Test
  void withAuthOffThereIsNoExtendedCardOnEitherBindingAndThePublicCardListsEveryInterface() {
    JsonNode rpc = call("GetExtendedAgentCard", "{}").get("error");
    assertThat(rpc.get("code").asInt()).isEqualTo(-32007);
    assertThat(rpc.at("/data/0/reason").asText()).isEqualTo("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
    HttpResponse<String> rest = gateway.get("/a2a/v1/extendedAgentCard", V1);
    assertThat(rest.statusCode()).as(rest.body()).isBetween(400, 499);
    assertThat(EdgeGateway.json(rest).at("/error/details/0/reason").asText())
        .isEqualTo("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
    JsonNode interfaces =
        EdgeGateway.json(gateway.get("/.well-known/agent-card.json")).get("supportedInterfaces");
    List<String> described = new ArrayList<>();
    interfaces.forEach(
        i ->
            described.add(
                i.get("protocolBinding").asText()
                    + " "
                    + i.get("protocolVersion").asText()
                    + " "
                    + i.get("url").asText().replaceFirst("^http://[^/]+", "")));
    assertThat(described)
        .containsExactly("JSONRPC 1.0 /a2a/v1", "HTTP+JSON 1.0 /a2a/v1", "JSONRPC 0.3 /a2a/");
  }

  @Test
  void theOnePointZeroCardHasOnlyOnePointZeroFieldsAndBothCardsCanBeCached() {
    HttpResponse<String> r = gateway.get("/a2a/v1/.well-known/agent-card.json");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode card = EdgeGateway.json(r);
    for (String zeroPointThree :
        List.of(
            "url",
            "protocolVersion",
            "preferredTransport",
            "additionalInterfaces",
            "supportsAuthenticatedExtendedCard",
            "security")) {
      assertThat(card.has(zeroPointThree)).as(zeroPointThree).isFalse();
    }
    assertThat(card.at("/capabilities").has("stateTransitionHistory")).isFalse();
    assertThat(card.get("supportedInterfaces").findValuesAsText("protocolVersion"))
        .containsExactly("1.0", "1.0");
    assertThat(card.get("skills")).isNotEmpty();

    for (String path :
        List.of("/.well-known/agent-card.json", "/a2a/v1/.well-known/agent-card.json")) {
      HttpResponse<String> first = gateway.get(path);
      String etag = first.headers().firstValue("ETag").orElseThrow();
      assertThat(first.headers().firstValue("Cache-Control").orElseThrow()).contains("max-age=");
      assertThat(first.headers().firstValue("Last-Modified")).isPresent();
      assertThat(gateway.get(path, "If-None-Match", etag).statusCode()).isEqualTo(304);
      assertThat(gateway.get(path, "If-None-Match", "\"other\"").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void paramsMayUseProtoFieldNamesAndANonJsonBodyIsContentTypeNotSupported() {
    String id = result("SendMessage", sendRequest("v1-snake", "x", true)).at("/task/id").asText();
    JsonNode got = result("GetTask", "{\"id\":\"" + id + "\",\"history_length\":0}");
    assertThat(got.has("history")).isFalse();
    // deleting a config twice (or one never made) is not an error: delete is idempotent
    for (int i = 0; i < 2; i++) {
      result(
          "DeleteTaskPushNotificationConfig", "{\"task_id\":\"" + id + "\",\"id\":\"never-made\"}");
    }

    HttpResponse<String> rpc =
        gateway.send(
            gateway
                .request("POST", "/a2a/v1", rpc("GetTask", "{\"id\":\"" + id + "\"}"))
                .setHeader("Content-Type", "text/plain")
                .header("A2A-Version", "1.0"));
    assertThat(EdgeGateway.json(rpc).at("/error/code").asInt()).isEqualTo(-32005);
    HttpResponse<String> rest =
        gateway.send(
            gateway
                .request("POST", "/a2a/v1/message:send", sendRequest("v1-plain", "x", true))
                .setHeader("Content-Type", "text/plain")
                .header("A2A-Version", "1.0"));
    assertThat(rest.statusCode()).as(rest.body()).isEqualTo(415);
  }

  @Test
  void errorsFollowTheOnePointZeroModel() {
    JsonNode notFound = call("GetTask", "{\"id\":\"no-such-task\"}").get("error");
    assertThat(notFound.get("code").asInt()).isEqualTo(-32001);
    assertThat(notFound.at("/data/0/@type").asText())
        .isEqualTo("type.googleapis.com/google.rpc.ErrorInfo");
    assertThat(notFound.at("/data/0/reason").asText()).isEqualTo("TASK_NOT_FOUND");
    assertThat(notFound.at("/data/0/domain").asText()).isEqualTo("a2a-protocol.org");
    HttpResponse<String> restNotFound = gateway.get("/a2a/v1/tasks/no-such-task", V1);
    assertThat(restNotFound.statusCode()).isEqualTo(404);
    JsonNode body = EdgeGateway.json(restNotFound).get("error");
    assertThat(body.get("code").asInt()).isEqualTo(404);
    assertThat(body.get("status").asText()).isEqualTo("NOT_FOUND");
    assertThat(body.at("/details/0/reason").asText()).isEqualTo("TASK_NOT_FOUND");

    assertThat(
            call("message/send", A2aCalls.sendParams("m", "hi", false)).at("/error/code").asInt())
        .isEqualTo(-32601);
    assertThat(
            call(
                    "SendMessage",
                    "{\"message\":{\"role\":\"ROLE_USER\",\"messageId\":\"m\",\"parts\":[{}]}}")
                .at("/error/code")
                .asInt())
        .isEqualTo(-32602);
    assertThat(
            call(
                    "SendMessage",
                    sendRequest("m-file", "x", true)
                        .replace("{\"text\":\"x\"}", "{\"url\":\"https://x.example/f\"}"))
                .at("/error/code")
                .asInt())
        .isEqualTo(-32005);
    assertThat(gateway.post("/a2a/v1/message:send", "{not json", V1).statusCode()).isEqualTo(400);
    assertThat(gateway.get("/a2a/v1/tasks?pageSize=x", V1).statusCode()).isEqualTo(400);
  }

  @Test
  void anUnsupportedOrAbsentVersionIsVersionNotSupported() {
    String before = gateway.recorded();
    for (String[] headers :
        List.of(
            new String[] {"A2A-Version", "99.0"},
            new String[] {"A2A-Version", ""},
            new String[] {"Accept", "application/json"},
            new String[] {"A2A-Version", "0.3"})) {
      JsonNode error =
          EdgeGateway.json(
                  gateway.post(
                      "/a2a/v1", rpc("SendMessage", sendRequest("m-v", "x", true)), headers))
              .get("error");
      assertThat(error.get("code").asInt()).as(String.join(":", headers)).isEqualTo(-32009);
      assertThat(error.at("/data/0/reason").asText()).isEqualTo("VERSION_NOT_SUPPORTED");
      HttpResponse<String> rest =
          gateway.post("/a2a/v1/message:send", sendRequest("m-v", "x", true), headers);
      assertThat(rest.statusCode()).isEqualTo(400);
      assertThat(EdgeGateway.json(rest).at("/error/details/0/reason").asText())
          .isEqualTo("VERSION_NOT_SUPPORTED");
    }
    assertThat(gateway.recorded()).isEqualTo(before);
    JsonNode asQuery =
        EdgeGateway.json(
            gateway.post("/a2a/v1?A2A-Version=1.0", rpc("GetTask", "{\"id\":\"none\"}")));
    assertThat(asQuery.at("/error/code").asInt()).isEqualTo(-32001);
  }

  /**
   * Opens an SSE POST, runs {@code afterFirst} once the first event arrived, and reads to the end.
   */
  private static List<JsonNode> stream(String path, String body, Runnable afterFirst) {
    try {
      HttpResponse<Stream<String>> r =
          HttpClient.newHttpClient()
              .send(
                  gateway
                      .request("POST", path, body)
                      .header("Accept", "text/event-stream")
                      .header("A2A-Version", "1.0")
                      .build(),
                  HttpResponse.BodyHandlers.ofLines());
      assertThat(r.statusCode()).isEqualTo(200);
      List<JsonNode> events = new ArrayList<>();
      var lines = r.body().iterator();
      while (lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data:")) {
          events.add(Json.MAPPER.readTree(line.substring(5)));
          if (events.size() == 1) {
            afterFirst.run();
          }
        }
      }
      return events;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}

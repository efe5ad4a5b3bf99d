package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.Topics;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP 2026-07-28 on {@code /mcp}, in-process: a sessionless client discovers the server, each fault
 * of the revision's headers and {@code _meta} is its error object and HTTP status (with the
 * request's id, no internals), the tasks extension answers only for the caller's own tasks and
 * {@code tasks/update} resumes a paused task the way an elicitation answer does, and a session of
 * 2025-11-25 still works beside it.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EdgeMcpStatelessTest {
  private static final String V = "2026-07-28";
  private static final String TASKS_EXT = "io.modelcontextprotocol/tasks";
  private static final List<String> INTERNALS = List.of("Exception", "at io.", ".java", "\tat ");

  /** A request of this revision: body with the per-request {@code _meta}, and its headers. */
  record Call(String method, ObjectNode params, List<String> headers) {
    static Call of(String method, ObjectNode params, String name) {
      ObjectNode meta = params.putObject("_meta");
      meta.put("io.modelcontextprotocol/protocolVersion", V);
      meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "edge").put("version", "1");
      meta.putObject("io.modelcontextprotocol/clientCapabilities")
          .putObject("extensions")
          .putObject(TASKS_EXT);
      List<String> headers =
          new ArrayList<>(
              List.of(
                  "Accept",
                  "application/json, text/event-stream",
                  "MCP-Protocol-Version",
                  V,
                  "Mcp-Method",
                  method));
      if (name != null) {
        headers.addAll(List.of("Mcp-Name", name));
      }
      return new Call(method, params, headers);
    }

    Call without(String header) {
      List<String> h = new ArrayList<>();
      for (int i = 0; i < headers.size(); i += 2) {
        if (!headers.get(i).equals(header)) {
          h.addAll(headers.subList(i, i + 2));
        }
      }
      return new Call(method, params, h);
    }

    Call with(String header, String value) {
      List<String> h = new ArrayList<>(without(header).headers);
      h.addAll(List.of(header, value));
      return new Call(method, params, h);
    }

    Call meta(String key, String value) {
      ObjectNode p = params.deepCopy();
      ObjectNode meta = (ObjectNode) p.get("_meta");
      if (value == null) {
        meta.remove(key);
      } else {
        meta.put(key, value);
      }
      return new Call(method, p, headers);
    }

    HttpResponse<String> send(EdgeGateway gateway, int id, String... extraHeaders) {
      ObjectNode body = Json.MAPPER.createObjectNode();
      body.put("jsonrpc", "2.0").put("id", id).put("method", method).set("params", params);
      List<String> h = new ArrayList<>(headers);
      h.addAll(List.of(extraHeaders));
      return gateway.post("/mcp", Json.write(body), h.toArray(String[]::new));
    }
  }

  private static ObjectNode params() {
    return Json.MAPPER.createObjectNode();
  }

  private static Call discover() {
    return Call.of("server/discover", params(), null);
  }

  private static Call tasksGet(String id) {
    return Call.of("tasks/get", params().put("taskId", id), id);
  }

  /**
   * A plain call (no tasks extension) from a client that can elicit: the flow's pause answers
   * {@code input_required} with the handler's question and a signed {@code requestState}; the call
   * again with the answer resumes that task (no new one) and answers its result.
   */
  @Test
  void aPausedPlainCallAsksWithInputRequiredAndItsRetryResumesTheSameTask() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      Call first = elicitingCall(params().put("name", "echo"));
      CompletableFuture<HttpResponse<String>> asked =
          CompletableFuture.supplyAsync(() -> first.send(gateway, 1));
      String id = startedTask(gateway);
      gateway.tasks.append(
          TaskEvent.paused(
              id, FinalReport.paused(id, Topics.PAUSE, Map.of("pause", "What is your name?"))));
      JsonNode question = last(asked.get(20, TimeUnit.SECONDS)).get("result");
      assertThat(question.get("resultType").asText())
          .as(question.toString())
          .isEqualTo("input_required");
      String state = question.get("requestState").asText();
      assertThat(state).isNotEqualTo(id);
      String key = question.get("inputRequests").fieldNames().next();
      JsonNode request = question.get("inputRequests").get(key);
      assertThat(request.get("method").asText()).isEqualTo("elicitation/create");
      assertThat(request.at("/params/message").asText()).isEqualTo("What is your name?");

      ObjectNode retry = params().put("name", "echo").put("requestState", state);
      retry
          .putObject("inputResponses")
          .putObject(key)
          .put("action", "accept")
          .putObject("content")
          .put("text", "Ada");
      CompletableFuture<HttpResponse<String>> answered =
          CompletableFuture.supplyAsync(() -> elicitingCall(retry).send(gateway, 2));
      Await.until(
          () -> !gateway.queue.resumed().isEmpty(), Duration.ofSeconds(10), "the task resumed");
      assertThat(gateway.queue.resumed().get(0).toString()).contains(id, "Ada");
      gateway.tasks.append(
          TaskEvent.finished(
              id,
              FinalReport.succeeded(
                  id, Json.MAPPER.readTree("{\"text\":\"Hi Ada\"}"), "x-sink", null)));
      JsonNode done = last(answered.get(20, TimeUnit.SECONDS)).get("result");
      assertThat(done.get("resultType").asText()).isEqualTo("complete");
      assertThat(done.at("/structuredContent/text").asText()).isEqualTo("Hi Ada");
      assertThat(gateway.tasks.events().stream().filter(e -> e.created() != null).count())
          .as("one task for both calls")
          .isEqualTo(1);
    }
  }

  /**
   * A handler that named its requests (x-svc-input-requests) is asked exactly those; answers that
   * leave one open are asked again under the same state and resume nothing; an altered state is
   * refused with -32602; every answer in resumes the task with all of them under the handler's
   * keys.
   */
  @Test
  void namedInputRequestsAreAskedAsNamedAndResumeOnlyWhenEveryOneIsAnswered() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      Call first = elicitingAndRootsCall(params().put("name", "echo"));
      CompletableFuture<HttpResponse<String>> asked =
          CompletableFuture.supplyAsync(() -> first.send(gateway, 1));
      String id = startedTask(gateway);
      JsonNode requests =
          Json.MAPPER.readTree(
              "{\"user_name\": {\"method\": \"elicitation/create\", \"params\": {\"message\":"
                  + " \"Name?\", \"requestedSchema\": {\"type\": \"object\"}}},"
                  + " \"client_roots\": {\"method\": \"roots/list\", \"params\": {}}}");
      gateway.tasks.append(
          TaskEvent.paused(
              id,
              FinalReport.paused(
                  id,
                  Topics.PAUSE,
                  Map.of("pause", "Name and roots?", "input_requests", requests))));
      JsonNode question = last(asked.get(20, TimeUnit.SECONDS)).get("result");
      assertThat(question.get("inputRequests")).as(question.toString()).isEqualTo(requests);
      String state = question.get("requestState").asText();

      ObjectNode tampered = params().put("name", "echo").put("requestState", state + "x");
      tampered.putObject("inputResponses").putObject("user_name").put("action", "accept");
      JsonNode refused = last(elicitingAndRootsCall(tampered).send(gateway, 2));
      assertThat(refused.at("/error/code").asInt()).as(refused.toString()).isEqualTo(-32602);
      assertThat(refused.at("/error/message").asText()).contains("integrity");

      ObjectNode partial = params().put("name", "echo").put("requestState", state);
      partial
          .putObject("inputResponses")
          .putObject("user_name")
          .put("action", "accept")
          .putObject("content")
          .put("name", "Ada");
      JsonNode again = last(elicitingAndRootsCall(partial).send(gateway, 3)).get("result");
      assertThat(again.get("resultType").asText()).as(again.toString()).isEqualTo("input_required");
      assertThat(again.get("inputRequests").has("client_roots")).isTrue();
      assertThat(again.get("inputRequests").has("user_name")).isFalse();
      assertThat(gateway.queue.resumed()).isEmpty();

      ObjectNode all = partial.deepCopy();
      ((ObjectNode) all.get("inputResponses"))
          .putObject("client_roots")
          .putArray("roots")
          .addObject()
          .put("uri", "file:///r");
      CompletableFuture<HttpResponse<String>> answered =
          CompletableFuture.supplyAsync(() -> elicitingAndRootsCall(all).send(gateway, 4));
      Await.until(
          () -> !gateway.queue.resumed().isEmpty(), Duration.ofSeconds(10), "the task resumed");
      assertThat(gateway.queue.resumed().get(0).toString())
          .contains("\"user_name\"", "Ada", "\"client_roots\"", "file:///r");
      gateway.tasks.append(
          TaskEvent.finished(
              id, FinalReport.succeeded(id, Json.MAPPER.readTree("{\"ok\":1}"), "x-sink", null)));
      assertThat(last(answered.get(20, TimeUnit.SECONDS)).at("/result/resultType").asText())
          .isEqualTo("complete");
    }
  }

  @Test
  void aFlowNeedingAnUndeclaredClientCapabilityIsRefusedWithoutATask() throws Exception {
    String flows =
        "flows:\n  - {name: asks, entrypoint: asks, mcp: {requiredClientCapabilities:"
            + " {elicitation: {}}}}\n";
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API, Map.of(), flows)) {
      Call plain = Call.of("tools/call", params().put("name", "asks"), "asks");
      ((ObjectNode) plain.params().at("/_meta/io.modelcontextprotocol~1clientCapabilities"))
          .removeAll();
      HttpResponse<String> r = plain.send(gateway, 5);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      JsonNode error = EdgeGateway.json(r).get("error");
      assertThat(error.get("code").asInt()).isEqualTo(-32021);
      assertThat(error.at("/data/requiredCapabilities").has("elicitation")).isTrue();
      assertThat(gateway.tasks.events()).noneMatch(e -> e.created() != null);

      // declared: the task starts
      Call declared = elicitingCall(params().put("name", "asks"));
      CompletableFuture.supplyAsync(() -> declared.send(gateway, 6));
      assertThat(startedTask(gateway)).isNotEmpty();
    }
  }

  @Test
  void anArgumentMarkedXMcpHeaderMustComeAsItsParamHeaderToo() throws Exception {
    String flows =
        "flows:\n  - {name: routed, entrypoint: routed, mcp: {inputSchema: {type: object,"
            + " properties: {region: {type: string, x-mcp-header: Region}}}}}\n";
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API, Map.of(), flows)) {
      ObjectNode p = params().put("name", "routed");
      p.putObject("arguments").put("region", "Hello");
      Call call = Call.of("tools/call", p, "routed");
      for (String[] bad :
          List.of(
              new String[] {},
              new String[] {"Mcp-Param-Region", "Elsewhere"},
              new String[] {"Mcp-Param-Region", "=?base64?SGVsbG8?="})) {
        HttpResponse<String> r = call.send(gateway, 8, bad);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        assertThat(EdgeGateway.json(r).at("/error/code").asInt()).isEqualTo(-32020);
      }
      assertThat(gateway.tasks.events()).noneMatch(e -> e.created() != null);

      // the canonical Base64 of the argument is the argument: the task starts
      CompletableFuture.supplyAsync(
          () -> call.send(gateway, 9, "Mcp-Param-Region", "=?base64?SGVsbG8=?="));
      assertThat(startedTask(gateway)).isNotEmpty();
    }
  }

  /** A tools/call of this revision from a client that declared elicitation, not the extension. */
  /** A call from a client that can be asked elicitations and its roots. */
  private static Call elicitingAndRootsCall(ObjectNode params) {
    Call call = elicitingCall(params);
    ((ObjectNode) call.params().at("/_meta/io.modelcontextprotocol~1clientCapabilities"))
        .putObject("roots");
    return call;
  }

  private static Call elicitingCall(ObjectNode params) {
    Call call = Call.of("tools/call", params, params.path("name").asText());
    ObjectNode caps =
        (ObjectNode) call.params().at("/_meta/io.modelcontextprotocol~1clientCapabilities");
    caps.remove("extensions");
    caps.putObject("elicitation");
    return call;
  }

  private static String startedTask(EdgeGateway gateway) {
    return Await.until(
            () -> gateway.tasks.events().stream().filter(e -> e.created() != null).findFirst(),
            Optional::isPresent,
            Duration.ofSeconds(10),
            "the call never started a task")
        .orElseThrow()
        .taskId();
  }

  /** The last JSON-RPC message of an answer: its JSON body, or its stream's last data line. */
  private static JsonNode last(HttpResponse<String> r) throws Exception {
    String body = r.body();
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      body =
          body.lines()
              .filter(l -> l.startsWith("data:") && !l.substring(5).isBlank())
              .reduce((a, b) -> b)
              .orElseThrow()
              .substring(5);
    }
    return Json.MAPPER.readTree(body);
  }

  @Test
  void aClientWithoutASessionDiscoversTheServerAndItsCacheHints() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      HttpResponse<String> r = discover().send(gateway, 1);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      assertThat(r.headers().firstValue("Mcp-Session-Id")).isEmpty();
      JsonNode result = EdgeGateway.json(r).get("result");
      assertThat(result.get("supportedVersions"))
          .extracting(JsonNode::asText)
          .startsWith(V)
          .contains("2025-11-25");
      assertThat(result.at("/capabilities/extensions").has(TASKS_EXT)).isTrue();
      assertThat(result.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asText())
          .isEqualTo("taskmesh");
      assertThat(result.get("resultType").asText()).isEqualTo("complete");
      assertThat(result.get("cacheScope").asText()).isEqualTo("public");

      JsonNode tools = EdgeGateway.json(Call.of("tools/list", params(), null).send(gateway, 2));
      assertThat(tools.at("/result/tools/0/name").asText()).isEqualTo("echo");
      assertThat(tools.at("/result/ttlMs").asInt()).isPositive();
      JsonNode resources =
          EdgeGateway.json(Call.of("resources/list", params(), null).send(gateway, 3));
      assertThat(resources.at("/result/ttlMs").asInt()).isZero();
      assertThat(resources.at("/result/cacheScope").asText()).isEqualTo("private");

      // a session of the older revision beside it, as before
      HttpResponse<String> init =
          gateway.post(
              "/mcp",
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                  + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                  + "\"clientInfo\":{\"name\":\"edge\",\"version\":\"1\"}}}",
              "Accept",
              "application/json, text/event-stream");
      assertThat(EdgeGateway.json(init).at("/result/protocolVersion").asText())
          .isEqualTo("2025-11-25");
      assertThat(init.headers().firstValue("Mcp-Session-Id")).isPresent();
    }
  }

  @Test
  void eachHeaderOrMetaFaultIsTheRevisionsErrorWithTheRequestsId() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String before = gateway.recorded();
      Call call = Call.of("tools/call", params().put("name", "echo"), "echo");
      String encoded =
          "=?base64?" + Base64.getEncoder().encodeToString("ech0".getBytes(StandardCharsets.UTF_8));
      Map<String, Object[]> cases =
          Map.ofEntries(
              Map.entry(
                  "no MCP-Protocol-Version", e(call.without("MCP-Protocol-Version"), 400, -32020)),
              Map.entry("no Mcp-Method", e(call.without("Mcp-Method"), 400, -32020)),
              Map.entry(
                  "Mcp-Method of another method",
                  e(call.with("Mcp-Method", "tools/list"), 400, -32020)),
              Map.entry(
                  "Mcp-Method in another case",
                  e(call.with("Mcp-Method", "TOOLS/CALL"), 400, -32020)),
              Map.entry("no Mcp-Name", e(call.without("Mcp-Name"), 400, -32020)),
              Map.entry("Mcp-Name of another tool", e(call.with("Mcp-Name", "other"), 400, -32020)),
              Map.entry(
                  "Base64 Mcp-Name of another tool",
                  e(call.with("Mcp-Name", encoded + "?="), 400, -32020)),
              Map.entry(
                  "broken Base64 Mcp-Name",
                  e(call.with("Mcp-Name", "=?base64?***?="), 400, -32020)),
              Map.entry(
                  "_meta without the version",
                  e(call.meta("io.modelcontextprotocol/protocolVersion", null), 400, -32602)),
              Map.entry(
                  "_meta version not the header's",
                  e(
                      call.meta("io.modelcontextprotocol/protocolVersion", "2025-11-25"),
                      400,
                      -32020)),
              Map.entry(
                  "a revision not spoken",
                  e(
                      call.meta("io.modelcontextprotocol/protocolVersion", "2099-01-01")
                          .with("MCP-Protocol-Version", "2099-01-01"),
                      400,
                      -32022)),
              Map.entry(
                  "initialize has no place here",
                  e(Call.of("initialize", params(), null), 404, -32601)),
              Map.entry("ping has no place here", e(Call.of("ping", params(), null), 404, -32601)),
              Map.entry(
                  "listen without a filter",
                  e(Call.of("subscriptions/listen", params(), null), 200, -32602)),
              Map.entry(
                  "listen with task ids that are not strings",
                  e(
                      Call.of(
                          "subscriptions/listen",
                          listenFor(Json.MAPPER.createArrayNode().add(7)),
                          null),
                      200,
                      -32602)),
              Map.entry(
                  "listen for tasks without the extension",
                  e(
                      withoutExtension(
                          Call.of(
                              "subscriptions/listen",
                              listenFor(Json.MAPPER.createArrayNode().add("t")),
                              null)),
                      400,
                      -32021)),
              Map.entry(
                  "_meta without the client capabilities",
                  e(
                      Call.of("tasks/get", params().put("taskId", "t"), "t")
                          .meta("io.modelcontextprotocol/clientCapabilities", null),
                      400,
                      -32602)));
      int id = 100;
      for (var c : cases.entrySet()) {
        Call faulty = (Call) c.getValue()[0];
        HttpResponse<String> r = faulty.send(gateway, ++id);
        String what = c.getKey() + ": " + r.body();
        assertThat(r.statusCode()).as(what).isEqualTo((int) c.getValue()[1]);
        JsonNode m = EdgeGateway.json(r);
        assertThat(m.get("id").asInt()).as(what).isEqualTo(id);
        assertThat(m.at("/error/code").asInt()).as(what).isEqualTo((int) c.getValue()[2]);
        assertThat(r.body()).as(what).doesNotContain(INTERNALS);
      }
      assertThat(gateway.recorded()).as("no refused call started a task").isEqualTo(before);
      HttpResponse<String> base64Name =
          call.with("Mcp-Name", "=?base64?ZWNobw==?=")
              .with("Mcp-Method", "  tools/call ")
              .send(gateway, 2);
      assertThat(base64Name.statusCode()).as(base64Name.body()).isEqualTo(200);
      assertThat(EdgeGateway.json(base64Name).at("/result/resultType").asText()).isEqualTo("task");

      JsonNode unsupported =
          EdgeGateway.json(
              call.meta("io.modelcontextprotocol/protocolVersion", "2099-01-01")
                  .with("MCP-Protocol-Version", "2099-01-01")
                  .send(gateway, 1));
      assertThat(unsupported.at("/error/data/requested").asText()).isEqualTo("2099-01-01");
      assertThat(unsupported.at("/error/data/supported"))
          .extracting(JsonNode::asText)
          .contains(V, "2025-11-25");
      ObjectNode noExtension = params().put("taskId", "t");
      Call undeclared = Call.of("tasks/get", noExtension, "t");
      ((ObjectNode) undeclared.params().at("/_meta/io.modelcontextprotocol~1clientCapabilities"))
          .removeAll();
      HttpResponse<String> r = undeclared.send(gateway, 7);
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      assertThat(EdgeGateway.json(r).at("/error/code").asInt()).isEqualTo(-32021);
      assertThat(
              EdgeGateway.json(r).at("/error/data/requiredCapabilities/extensions").has(TASKS_EXT))
          .isTrue();
    }
  }

  private static Call withoutExtension(Call call) {
    ((ObjectNode) call.params().at("/_meta/io.modelcontextprotocol~1clientCapabilities"))
        .removeAll();
    return call;
  }

  private static ObjectNode listenFor(JsonNode taskIds) {
    ObjectNode p = params();
    p.putObject("notifications").set("taskIds", taskIds);
    return p;
  }

  private static Object[] e(Call call, int status, int code) {
    return new Object[] {call, status, code};
  }

  @Test
  void aTaskAugmentedCallIsATaskTheCallerAloneFollowsUpdatesAndCancels() throws Exception {
    try (EdgeGateway gateway =
        EdgeGateway.start(GatewayMode.API, Map.of("SVC_MCP_API_KEY", "edge-key"))) {
      String[] auth = {"Authorization", "Bearer edge-key"};
      assertThat(discover().send(gateway, 1).statusCode()).as("no key").isEqualTo(401);

      Call call =
          Call.of(
              "tools/call",
              params().put("name", "echo").set("arguments", params().put("text", "hi")),
              "echo");
      JsonNode created = EdgeGateway.json(call.send(gateway, 2, auth)).get("result");
      assertThat(created.get("resultType").asText()).isEqualTo("task");
      assertThat(created.has("task")).as("flat, no task wrapper").isFalse();
      assertThat(created.has("ttl") || created.has("pollInterval")).isFalse();
      assertThat(created.get("pollIntervalMs").asInt()).isPositive();
      String id = created.get("taskId").asText();

      JsonNode working = EdgeGateway.json(tasksGet(id).send(gateway, 3, auth)).get("result");
      assertThat(working.get("taskId").asText()).isEqualTo(id);
      assertThat(working.get("status").asText()).isEqualTo("working");
      assertThat(working.has("result")).isFalse();

      gateway.tasks.append(
          TaskEvent.paused(
              id, FinalReport.paused(id, Topics.PAUSE, Map.of("question", "which colour?"))));
      JsonNode paused = EdgeGateway.json(tasksGet(id).send(gateway, 4, auth)).get("result");
      assertThat(paused.get("status").asText()).isEqualTo("input_required");
      var keys = paused.get("inputRequests").fieldNames();
      String key = keys.next();
      assertThat(paused.at("/inputRequests/" + key + "/method").asText())
          .isEqualTo("elicitation/create");

      ObjectNode answer = params().put("taskId", id);
      answer.putObject("inputResponses").putObject("not-the-key").put("action", "accept");
      Call wrongKey = Call.of("tasks/update", answer, id);
      assertThat(
              EdgeGateway.json(wrongKey.send(gateway, 5, auth)).at("/result/resultType").asText())
          .isEqualTo("complete");
      assertThat(gateway.queue.resumed()).as("an unknown key is ignored").isEmpty();

      ObjectNode reply = params().put("taskId", id);
      reply
          .putObject("inputResponses")
          .putObject(key)
          .put("action", "accept")
          .putObject("content")
          .put("text", "blue");
      JsonNode ack = EdgeGateway.json(Call.of("tasks/update", reply, id).send(gateway, 6, auth));
      assertThat(ack.get("result").size()).as(ack.toString()).isEqualTo(1); // resultType only
      assertThat(gateway.queue.resumed()).hasSize(1);
      assertThat(gateway.queue.resumed().get(0).envelopeId()).isEqualTo(id);
      assertThat(gateway.queue.resumed().get(0).input().get("text").asText()).isEqualTo("blue");

      String foreign = gateway.seedTask("foreign-task", "someone-else");
      for (String method : List.of("tasks/get", "tasks/update", "tasks/cancel")) {
        JsonNode m =
            EdgeGateway.json(
                Call.of(method, params().put("taskId", foreign), foreign).send(gateway, 8, auth));
        assertThat(m.at("/error/code").asInt()).as(method + " " + m).isEqualTo(-32602);
      }

      JsonNode cancelled =
          EdgeGateway.json(
              Call.of("tasks/cancel", params().put("taskId", id), id).send(gateway, 9, auth));
      assertThat(cancelled.at("/result/resultType").asText()).isEqualTo("complete");
      assertThat(cancelled.get("result").has("status")).isFalse();
      assertThat(gateway.tasks.get(id).orElseThrow().status().isFinal()).isTrue();
    }
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MCP over both transports, in-process over in-memory ports: every bad request on {@code /mcp},
 * {@code /mcp/sse} and {@code /mcp/message} answers a JSON-RPC error object with the transport
 * specification's HTTP status and never a stack trace, class or file name, in every mode that
 * serves MCP; oversized arguments are refused naming the limit with nothing written; a started
 * task's result carries {@code structuredContent} and URLs the answering gateway serves.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class EdgeMcpTest {
  private static final String ACCEPT_BOTH = "application/json, text/event-stream";
  private static final List<String> INTERNALS =
      List.of("Exception", "at io.", ".java", "\tat ", "stackTrace");
  private static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
          + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"edge\",\"version\":\"1\"}}}";
  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /** One bad request and the answer it must get. */
  record Case(
      String why,
      String method,
      String path,
      String body,
      int status,
      Integer code,
      String[] headers) {
    @Override
    public String toString() {
      return method + " " + path + ": " + why;
    }
  }

  @Test
  void everyBadRequestIsAJsonRpcErrorWithTheTransportStatusInApiMode() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      sweep(gateway);
    }
  }

  @Test
  void everyBadRequestIsAJsonRpcErrorWithTheTransportStatusInTestingMode() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.TESTING)) {
      sweep(gateway);
    }
  }

  @Test
  void theMeshModeDoesNotServeMcpAndLeaksNothing() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.MESH)) {
      for (String path : List.of("/mcp", "/mcp/sse", "/mcp/message")) {
        HttpResponse<String> r = gateway.post(path, "{nope", "Accept", ACCEPT_BOTH);
        assertThat(r.statusCode()).as(path).isEqualTo(404);
        assertNoInternals(path, r);
      }
    }
  }

  @Test
  void withAuthOnA401IsAJsonRpcErrorThatKeepsItsChallenge() throws Exception {
    try (EdgeGateway gateway =
        EdgeGateway.start(GatewayMode.API, Map.of("SVC_MCP_API_KEY", "edge-key"))) {
      for (String[] route :
          List.of(
              new String[] {"POST", "/mcp"},
              new String[] {"GET", "/mcp/sse"},
              new String[] {"POST", "/mcp/message?sessionId=x"})) {
        HttpResponse<String> r =
            gateway.send(
                route[0], route[1], "POST".equals(route[0]) ? INIT : null, "Accept", ACCEPT_BOTH);
        assertThat(r.statusCode()).as(route[1]).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate").orElse(""))
            .startsWith("Bearer realm=");
        assertJsonRpcError(route[1], r, -32600);
        assertNoInternals(route[1], r);
      }
    }
  }

  @Test
  void aRequestOfTheStatelessRevisionIsRefusedWithItsIdUntilItCarriesWhatTheRevisionRequires()
      throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String discover =
          "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"server/discover\",\"params\":"
              + "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}";
      // without a session it is served sessionless (EdgeMcpStatelessTest): here without its
      // headers, then without its client capabilities
      Map<Integer, String[]> faults =
          Map.of(
              -32020,
              new String[] {"Accept", ACCEPT_BOTH},
              -32602,
              new String[] {
                "Accept",
                ACCEPT_BOTH,
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "server/discover"
              });
      for (var fault : faults.entrySet()) {
        HttpResponse<String> r = gateway.post("/mcp", discover, fault.getValue());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
        JsonNode answer = message(r);
        assertThat(answer.get("id").asInt()).isEqualTo(9);
        assertThat(answer.at("/error/code").asInt()).isEqualTo(fault.getKey());
        assertNoInternals("discover", r);
      }
      // a session speaks the revision it was initialized with, never 2026-07-28
      HttpResponse<String> r =
          gateway.post(
              "/mcp",
              discover,
              "Accept",
              ACCEPT_BOTH,
              "MCP-Protocol-Version",
              "2026-07-28",
              "Mcp-Session-Id",
              session(gateway));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
      JsonNode answer = message(r);
      assertThat(answer.get("id").asInt()).isEqualTo(9);
      assertThat(answer.at("/error/code").asInt()).isEqualTo(-32022);
      assertThat(answer.at("/error/data/requested").asText()).isEqualTo("2026-07-28");
      assertThat(answer.at("/error/data/supported"))
          .extracting(JsonNode::asText)
          .contains("2025-11-25");
    }
  }

  @Test
  void anUnknownToolIsNamedOnBothTransports() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String call =
          "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"no-such-tool\"}}";
      HttpResponse<String> r =
          gateway.post("/mcp", call, "Accept", ACCEPT_BOTH, "Mcp-Session-Id", session(gateway));
      JsonNode error = message(r).get("error");
      assertThat(error.get("code").asInt()).isEqualTo(-32602);
      assertThat(error.get("message").asText()).isEqualTo("Unknown tool: no-such-tool");

      try (LegacySse sse = LegacySse.open(gateway)) {
        sse.initialize(gateway);
        assertThat(gateway.post(sse.endpoint, call).statusCode()).isBetween(200, 202);
        JsonNode answer = sse.nextMessage();
        assertThat(answer.get("error").get("message").asText())
            .isEqualTo("Unknown tool: no-such-tool");
      }
    }
  }

  @Test
  void oversizedArgumentsAreRefusedNamingTheLimitBeforeAnythingIsWritten() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String before = gateway.recorded();
      String arguments = "{\"pad\":\"" + "x".repeat(ToolCalls.MAX_ARGUMENT_BYTES) + "\"}";
      String limit = String.valueOf(ToolCalls.MAX_ARGUMENT_BYTES);

      HttpResponse<String> plain =
          gateway.post("/tools/call", "{\"name\":\"echo\",\"arguments\":" + arguments + "}");
      assertThat(plain.statusCode()).as(plain.body()).isEqualTo(413);
      assertThat(plain.body()).contains(limit);

      HttpResponse<String> mcp =
          gateway.post(
              "/mcp",
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
                  + "\"params\":{\"name\":\"echo\",\"arguments\":"
                  + arguments
                  + "}}",
              "Accept",
              ACCEPT_BOTH,
              "Mcp-Session-Id",
              session(gateway));
      JsonNode result = message(mcp).get("result");
      assertThat(result.get("isError").asBoolean()).isTrue();
      assertThat(result.get("content").get(0).get("text").asText()).contains(limit);

      // over the body limit of every route: refused by the transport (the SDK servlets are not
      // behind Javalin's)
      String huge =
          "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
              + "\"arguments\":{\"pad\":\""
              + "x".repeat(5 * 1024 * 1024)
              + "\"}}}";
      HttpResponse<String> tooBig =
          gateway.post("/mcp", huge, "Accept", ACCEPT_BOTH, "Mcp-Session-Id", session(gateway));
      assertThat(tooBig.statusCode()).isEqualTo(413);
      assertJsonRpcError("5 MB", tooBig, -32600);
      assertThat(tooBig.body()).contains(String.valueOf(GatewayApp.MAX_BODY_BYTES));
      assertThat(gateway.recorded()).isEqualTo(before);
    }
  }

  @Test
  void aPlainToolCallAnswersTheFlowsResultWithItsProgressOnTheCallsOwnStream() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String session = session(gateway);
      JsonNode tools =
          message(gateway.post("/mcp", LIST, "Accept", ACCEPT_BOTH, "Mcp-Session-Id", session))
              .get("result")
              .get("tools");
      // the answer is the flow's result, which no schema of ours describes: any object
      assertThat(tools)
          .allSatisfy(
              tool ->
                  assertThat(tool.get("outputSchema"))
                      .isEqualTo(Json.MAPPER.readTree("{\"type\":\"object\"}")));

      CompletableFuture<HttpResponse<String>> call =
          callAsync(gateway, session, "{\"x\":1}", "\"_meta\":{\"progressToken\":\"p1\"},");
      String id = startedTask(gateway);
      gateway.fly.publish(id, Json.MAPPER.readTree("{\"text\":\"HEL\"}"));
      gateway.tasks.append(
          TaskEvent.progress(
              id,
              ProgressReport.routeForm(
                  Route.start("echo", List.of("upper")), ActorState.COMPLETED, null)));
      gateway.tasks.append(
          TaskEvent.finished(
              id,
              FinalReport.succeeded(
                  id, Json.MAPPER.readTree("{\"text\":\"HELLO\"}"), "x-sink", null)));
      HttpResponse<String> answer = call.get(10, TimeUnit.SECONDS);
      List<JsonNode> messages = messages(answer);
      JsonNode result = messages.get(messages.size() - 1).get("result");
      assertThat(result.get("isError").asBoolean()).isFalse();
      assertThat(result.get("structuredContent"))
          .isEqualTo(Json.MAPPER.readTree("{\"text\":\"HELLO\"}"));
      assertThat(result.at("/content/0/text").asText()).isEqualTo("{\"text\":\"HELLO\"}");
      List<Double> progress =
          messages.stream()
              .filter(m -> "notifications/progress".equals(m.path("method").asText()))
              .map(m -> m.at("/params/progress").asDouble())
              .toList();
      assertThat(progress).isNotEmpty().isSorted().endsWith(100.0);
      // the flow's tokens come as log messages of the call, before its answer
      assertThat(messages)
          .as(messages.toString())
          .filteredOn(m -> "notifications/message".equals(m.path("method").asText()))
          .singleElement()
          .satisfies(
              m -> {
                assertThat(m.at("/params/logger").asText()).isEqualTo("taskmesh/fly");
                assertThat(m.at("/params/data/taskId").asText()).isEqualTo(id);
                assertThat(m.at("/params/data/event/text").asText()).isEqualTo("HEL");
              });

      // the REST door keeps the spec's immediate answer: the task's handle
      HttpResponse<String> plain = gateway.post("/tools/call", "{\"name\":\"echo\"}");
      JsonNode plainResult = EdgeGateway.json(plain);
      JsonNode text = Json.MAPPER.readTree(plainResult.get("content").get(0).get("text").asText());
      assertThat(plainResult.get("structuredContent")).isEqualTo(text);
      String restId = text.get("task_id").asText();
      assertThat(text.get("status_url").asText()).isEqualTo("/tasks/" + restId);
      assertThat(gateway.get(text.get("status_url").asText()).statusCode()).isEqualTo(200);
      assertThat(gateway.status("GET", text.get("stream_url").asText(), null)).isEqualTo(200);
    }
  }

  @Test
  void aSessionThatSetALogLevelHearsTheFlowsTokensWithoutAProgressToken() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String session = session(gateway);
      gateway.post(
          "/mcp",
          "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\","
              + "\"params\":{\"level\":\"info\"}}",
          "Accept",
          ACCEPT_BOTH,
          "Mcp-Session-Id",
          session);
      CompletableFuture<HttpResponse<String>> call = callAsync(gateway, session, "{}", "");
      String id = startedTask(gateway);
      gateway.fly.publish(id, Json.MAPPER.readTree("{\"text\":\"one\"}"));
      gateway.tasks.append(
          TaskEvent.finished(
              id, FinalReport.succeeded(id, Json.MAPPER.readTree("{}"), "x-sink", null)));
      List<JsonNode> messages = messages(call.get(10, TimeUnit.SECONDS));
      assertThat(messages)
          .as(messages.toString())
          .filteredOn(m -> "notifications/message".equals(m.path("method").asText()))
          .singleElement()
          .satisfies(m -> assertThat(m.at("/params/data/event/text").asText()).isEqualTo("one"));
      assertThat(messages)
          .noneMatch(m -> "notifications/progress".equals(m.path("method").asText()));
    }
  }

  @Test
  void aResultsMcpMemberIsTheAnswersContentAndTheRestItsStructuredContent() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String session = session(gateway);
      CompletableFuture<HttpResponse<String>> call = callAsync(gateway, session, "{}", "");
      String id = startedTask(gateway);
      String image = "{\"type\":\"image\",\"data\":\"iVBORw0KGgo=\",\"mimeType\":\"image/png\"}";
      gateway.tasks.append(
          TaskEvent.finished(
              id,
              FinalReport.succeeded(
                  id,
                  Json.MAPPER.readTree("{\"mcp\":{\"content\":[" + image + "]},\"pixels\":1}"),
                  "x-sink",
                  null)));
      List<JsonNode> messages = messages(call.get(10, TimeUnit.SECONDS));
      JsonNode result = messages.get(messages.size() - 1).get("result");
      assertThat(result.get("isError").asBoolean()).isFalse();
      assertThat(result.get("content")).isEqualTo(Json.MAPPER.readTree("[" + image + "]"));
      assertThat(result.get("structuredContent")).isEqualTo(Json.MAPPER.readTree("{\"pixels\":1}"));

      // a member that is not content blocks is just data: the result is answered as JSON text
      CompletableFuture<HttpResponse<String>> other = callAsync(gateway, session, "{}", "");
      String otherId =
          Await.until(
                  () ->
                      gateway.tasks.events().stream()
                          .filter(e -> e.created() != null && !e.taskId().equals(id))
                          .findFirst(),
                  Optional::isPresent,
                  Duration.ofSeconds(10),
                  "the second call never started a task")
              .orElseThrow()
              .taskId();
      String plain = "{\"mcp\":{\"content\":[{\"type\":\"video\"}]}}";
      gateway.tasks.append(
          TaskEvent.finished(
              otherId,
              FinalReport.succeeded(otherId, Json.MAPPER.readTree(plain), "x-sink", null)));
      List<JsonNode> otherMessages = messages(other.get(10, TimeUnit.SECONDS));
      JsonNode otherResult = otherMessages.get(otherMessages.size() - 1).get("result");
      assertThat(otherResult.get("structuredContent")).isEqualTo(Json.MAPPER.readTree(plain));
      assertThat(otherResult.at("/content/0/type").asText()).isEqualTo("text");
      assertThat(Json.MAPPER.readTree(otherResult.at("/content/0/text").asText()))
          .isEqualTo(Json.MAPPER.readTree(plain));
    }
  }

  @Test
  void aFailedFlowIsAToolErrorNamingTheFailingActorWithItsTraceback() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String session = session(gateway);
      CompletableFuture<HttpResponse<String>> call = callAsync(gateway, session, "{}", "");
      String id = startedTask(gateway);
      ErrorDetails details =
          new ErrorDetails(
              "upper",
              "KeyError",
              "ProcessingError",
              "Traceback (most recent call last):\n  File \"text.py\"\nKeyError: 'text'\n");
      gateway.tasks.append(
          TaskEvent.finished(
              id, FinalReport.failed(id, "KeyError: 'text'", "x-sink", null, details)));
      List<JsonNode> messages = messages(call.get(10, TimeUnit.SECONDS));
      JsonNode result = messages.get(messages.size() - 1).get("result");
      assertThat(result.get("isError").asBoolean()).isTrue();
      assertThat(result.at("/content/0/text").asText())
          .startsWith("KeyError: 'text' (in actor upper)")
          .contains("Traceback (most recent call last):")
          .endsWith("KeyError: 'text'\n");
    }
  }

  @Test
  void aPausedFlowAnswersItsQuestionToAClientThatCannotBeAsked() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.API)) {
      String session = session(gateway); // declared no elicitation
      CompletableFuture<HttpResponse<String>> call = callAsync(gateway, session, "{}", "");
      String id = startedTask(gateway);
      gateway.tasks.append(
          TaskEvent.paused(
              id, FinalReport.paused(id, "x-pause", Map.of("pause", "What is your name?"))));
      List<JsonNode> messages = messages(call.get(10, TimeUnit.SECONDS));
      JsonNode result = messages.get(messages.size() - 1).get("result");
      assertThat(result.at("/content/0/text").asText())
          .contains("waiting for input: What is your name?")
          .contains(id);
      assertThat(result.at("/structuredContent/task_id").asText()).isEqualTo(id);
    }
  }

  @Test
  void aCallThatOutlivesTheWaitAnswersTheHandleAndHowToFollowIt() throws Exception {
    try (EdgeGateway gateway =
        EdgeGateway.start(GatewayMode.API, Map.of("SVC_TOOL_CALL_WAIT", "1s"))) {
      String session = session(gateway);
      List<JsonNode> messages =
          messages(callAsync(gateway, session, "{}", "").get(10, TimeUnit.SECONDS));
      JsonNode result = messages.get(messages.size() - 1).get("result");
      String id = result.at("/structuredContent/task_id").asText();
      assertThat(id).isNotEmpty();
      assertThat(result.get("isError").asBoolean()).isFalse();
      assertThat(result.at("/content/0/text").asText())
          .contains("still running after 1 s", "/tasks/" + id, "/stream/" + id);
    }
  }

  /** A plain tools/call of echo, sent without waiting for its answer. */
  private static CompletableFuture<HttpResponse<String>> callAsync(
      EdgeGateway gateway, String session, String arguments, String meta) {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{"
            + meta
            + "\"name\":\"echo\",\"arguments\":"
            + arguments
            + "}}";
    return HttpClient.newHttpClient()
        .sendAsync(
            gateway
                .request("POST", "/mcp", body)
                .headers("Accept", ACCEPT_BOTH, "Mcp-Session-Id", session)
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** The id of the task the call just started. */
  private static String startedTask(EdgeGateway gateway) {
    return Await.until(
            () -> gateway.tasks.events().stream().filter(e -> e.created() != null).findFirst(),
            Optional::isPresent,
            Duration.ofSeconds(10),
            "the call never started a task")
        .orElseThrow()
        .taskId();
  }

  /** Every JSON-RPC message of an answer: one JSON body, or each data line of an event stream. */
  private static List<JsonNode> messages(HttpResponse<String> r) throws IOException {
    if (!r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      return List.of(Json.MAPPER.readTree(r.body()));
    }
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.body().lines().toList()) {
      if (line.startsWith("data:") && !line.substring(5).isBlank()) {
        out.add(Json.MAPPER.readTree(line.substring(5).trim()));
      }
    }
    return out;
  }

  private static void sweep(EdgeGateway gateway) throws Exception {
    String session = session(gateway);
    List<Case> cases = new ArrayList<>();
    cases.add(
        new Case(
            "no session", "POST", "/mcp", LIST, 400, -32600, new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "unknown session",
            "POST",
            "/mcp",
            LIST,
            404,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", "no-such-session"}));
    cases.add(
        new Case(
            "invalid JSON",
            "POST",
            "/mcp",
            "{nope",
            400,
            -32700,
            new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "empty body", "POST", "/mcp", "", 400, -32700, new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "a batch",
            "POST",
            "/mcp",
            "[" + LIST + "]",
            400,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "no jsonrpc",
            "POST",
            "/mcp",
            "{\"id\":1,\"method\":\"ping\"}",
            400,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "method not a string",
            "POST",
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}",
            400,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "wrong Content-Type",
            "POST",
            "/mcp",
            INIT,
            415,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH, "Content-Type", "text/plain"}));
    cases.add(
        new Case(
            "Accept without event-stream",
            "POST",
            "/mcp",
            INIT,
            406,
            -32600,
            new String[] {"Accept", "application/json"}));
    cases.add(
        new Case(
            "Accept of neither",
            "POST",
            "/mcp",
            INIT,
            406,
            -32600,
            new String[] {"Accept", "text/html"}));
    cases.add(
        new Case(
            "GET without event-stream",
            "GET",
            "/mcp",
            null,
            406,
            -32600,
            new String[] {"Mcp-Session-Id", session}));
    cases.add(
        new Case(
            "GET without session",
            "GET",
            "/mcp",
            null,
            400,
            -32600,
            new String[] {"Accept", "text/event-stream"}));
    cases.add(
        new Case(
            "DELETE unknown session",
            "DELETE",
            "/mcp",
            null,
            404,
            -32600,
            new String[] {"Mcp-Session-Id", "no-such-session"}));
    cases.add(
        new Case("PUT", "PUT", "/mcp", "{}", 405, -32600, new String[] {"Accept", ACCEPT_BOTH}));
    cases.add(
        new Case(
            "unknown method",
            "POST",
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"no/such\"}",
            200,
            -32601,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", session}));
    cases.add(
        new Case(
            "tools/call without params",
            "POST",
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\"}",
            200,
            -32602,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", session}));
    cases.add(
        new Case(
            "tools/call with arguments not an object",
            "POST",
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":[1]}}",
            200,
            -32602,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", session}));
    cases.add(
        new Case(
            "unknown tool",
            "POST",
            "/mcp",
            "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}",
            200,
            -32602,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", session}));
    cases.add(
        new Case(
            "body over the limit",
            "POST",
            "/mcp",
            BadRequest.OVERSIZED,
            413,
            -32600,
            new String[] {"Accept", ACCEPT_BOTH, "Mcp-Session-Id", session}));
    cases.add(
        new Case("POST to the SSE stream", "POST", "/mcp/sse", LIST, 404, -32600, new String[0]));
    cases.add(new Case("no session", "POST", "/mcp/message", LIST, 400, -32600, new String[0]));
    cases.add(
        new Case(
            "unknown session",
            "POST",
            "/mcp/message?sessionId=no-such",
            LIST,
            404,
            -32600,
            new String[0]));
    cases.add(
        new Case(
            "wrong Content-Type",
            "POST",
            "/mcp/message?sessionId=no-such",
            LIST,
            415,
            -32600,
            new String[] {"Content-Type", "text/plain"}));
    cases.add(
        new Case(
            "body over the limit",
            "POST",
            "/mcp/message?sessionId=no-such",
            BadRequest.OVERSIZED,
            413,
            -32600,
            new String[0]));
    try (LegacySse sse = LegacySse.open(gateway)) {
      String path = sse.endpoint;
      cases.add(new Case("invalid JSON", "POST", path, "{nope", 400, -32700, new String[0]));
      cases.add(new Case("a batch", "POST", path, "[" + LIST + "]", 400, -32600, new String[0]));
      cases.add(
          new Case(
              "tools/call without params",
              "POST",
              path,
              "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\"}",
              400,
              -32602,
              new String[0]));
      String before = gateway.recorded();
      for (Case c : cases) {
        HttpRequest.Builder b = gateway.request(c.method(), c.path(), c.body());
        for (int i = 0; i < c.headers().length; i += 2) {
          b.setHeader(c.headers()[i], c.headers()[i + 1]);
        }
        HttpResponse<String> r = gateway.send(b);
        assertThat(r.statusCode()).as(c + ": " + r.body()).isEqualTo(c.status());
        assertNoInternals(c.toString(), r);
        assertJsonRpcError(c.toString(), r, c.code());
      }
      assertThat(gateway.recorded()).as("no bad request wrote anything").isEqualTo(before);
    }
  }

  /** A new Streamable HTTP session's id. */
  private static String session(EdgeGateway gateway) {
    HttpResponse<String> r = gateway.post("/mcp", INIT, "Accept", ACCEPT_BOTH);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** The JSON-RPC message of a response, sent as JSON or as the data of one SSE event. */
  private static JsonNode message(HttpResponse<String> r) throws IOException {
    String body = r.body();
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      body =
          body.lines()
              .filter(l -> l.startsWith("data:"))
              .map(l -> l.substring(5).trim())
              .filter(l -> !l.isEmpty())
              .findFirst()
              .orElseThrow(() -> new AssertionError("no data event: " + r.body()));
    }
    return Json.MAPPER.readTree(body);
  }

  private static void assertJsonRpcError(String what, HttpResponse<String> r, int code)
      throws IOException {
    JsonNode m = message(r);
    assertThat(m.get("jsonrpc").asText()).as(what).isEqualTo("2.0");
    assertThat(m.has("id")).as(what + ": has an id (null when unknown)").isTrue();
    assertThat(m.get("error").get("code").asInt()).as(what + ": " + r.body()).isEqualTo(code);
    assertThat(m.get("error").get("message").asText()).as(what).isNotBlank();
  }

  private static void assertNoInternals(String what, HttpResponse<String> r) {
    assertThat(r.body()).as(what).doesNotContain(INTERNALS);
    assertThat(r.body().length()).as(what + ": a short error").isLessThan(600);
  }

  /**
   * An open legacy SSE stream ({@code GET /mcp/sse}) and the message path its endpoint event named.
   */
  private static final class LegacySse implements AutoCloseable {
    private final InputStream body;
    private final BufferedReader lines;
    final String endpoint;

    private LegacySse(InputStream body) throws IOException {
      this.body = body;
      this.lines = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
      this.endpoint = nextData("endpoint");
    }

    static LegacySse open(EdgeGateway gateway) throws IOException, InterruptedException {
      HttpResponse<InputStream> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(gateway.url("/mcp/sse")))
                  .header("Accept", "text/event-stream")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(r.statusCode()).isEqualTo(200);
      return new LegacySse(r.body());
    }

    /** The lifecycle's first two messages, without which the session takes no requests. */
    void initialize(EdgeGateway gateway) throws IOException {
      assertThat(gateway.post(endpoint, INIT).statusCode()).isBetween(200, 202);
      assertThat(nextMessage().get("result").get("serverInfo").get("name").asText())
          .isEqualTo("taskmesh");
      assertThat(
              gateway
                  .post(endpoint, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                  .statusCode())
          .isBetween(200, 202);
    }

    JsonNode nextMessage() throws IOException {
      return Json.MAPPER.readTree(nextData("message"));
    }

    private String nextData(String event) throws IOException {
      String current = "message";
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        if (line.startsWith("event:")) {
          current = line.substring(6).trim();
        } else if (line.startsWith("data:") && current.equals(event)) {
          return line.substring(5).trim();
        }
      }
      throw new AssertionError("stream ended before a '" + event + "' event");
    }

    @Override
    public void close() {
      try {
        body.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}

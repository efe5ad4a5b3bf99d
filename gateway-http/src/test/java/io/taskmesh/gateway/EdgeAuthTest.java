package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.McpAuth;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.topology.TaskViewConfig;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Client auth on (static MCP key, A2A key, internal token), in-process over in-memory ports: every
 * credential-taking route refuses missing and wrong credentials without changing anything, and a
 * task of one principal answers like an unknown one to every other principal on {@code
 * /tasks/{id}}, {@code /stream/{id}}, the internal routes and the A2A methods.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeAuthTest {
  private static final String MCP_KEY = "edge-mcp-key";
  private static final String A2A_KEY = "edge-a2a-key";
  private static final String TOKEN = "edge-internal-token-0123";
  private static final String MCP_OWNER = McpAuth.STATIC_KEY_PRINCIPAL;
  private static final String A2A_OWNER = "a2a:api-key";
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway =
        EdgeGateway.start(
            GatewayMode.API,
            Map.of(
                "SVC_MCP_API_KEY",
                MCP_KEY,
                "SVC_A2A_API_KEY",
                A2A_KEY,
                "SVC_INTERNAL_TOKEN",
                TOKEN));
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @Test
  void mcpRoutesRefuseMissingAndWrongBearersWithAChallenge() {
    List<String[]> wrong =
        List.of(
            new String[0],
            new String[] {"Authorization", "Bearer " + A2A_KEY},
            new String[] {"Authorization", "Bearer " + MCP_KEY + "x"},
            new String[] {"Authorization", "Basic " + MCP_KEY},
            new String[] {"X-API-Key", MCP_KEY});
    // a task of this principal, so that the right key gets past /stream's wait for unknown ids at
    // once
    String own = gateway.seedTask("auth-own", MCP_OWNER);
    List<String> routes =
        List.of(
            "POST /mcp",
            "GET /mcp/sse",
            "POST /mcp/message?sessionId=x",
            "POST /tools/call",
            "GET /stream/" + own,
            "GET /tasks/" + own);
    String before = gateway.recorded();
    for (String route : routes) {
      String[] mp = route.split(" ");
      for (String[] headers : wrong) {
        HttpResponse<String> r = gateway.send(mp[0], mp[1], bodyFor(mp[0]), headers);
        assertThat(r.statusCode()).as(route + " " + List.of(headers)).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate").orElse(""))
            .startsWith("Bearer realm=");
      }
    }
    assertThat(gateway.recorded()).isEqualTo(before);
    for (String route : routes) {
      String[] mp = route.split(" ");
      // status only: with the right key GET /mcp/sse opens a stream that stays open
      assertThat(
              gateway.status(
                  mp[0],
                  mp[1],
                  bodyFor(mp[0]),
                  "Authorization",
                  "Bearer " + MCP_KEY,
                  "Accept",
                  "application/json, text/event-stream"))
          .as(route + " right key")
          .isNotEqualTo(401);
    }
  }

  /**
   * A body every POST route of the MCP domain can read: a tool call that is also a JSON-RPC ping.
   */
  private static String bodyFor(String method) {
    return method.equals("POST")
        ? "{\"name\":\"echo\",\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"
        : null;
  }

  @Test
  void aRefusedToolCallStartsNothing() {
    String before = gateway.recorded();
    assertThat(
            gateway
                .post("/tools/call", "{\"name\":\"echo\"}", "Authorization", "Bearer " + A2A_KEY)
                .statusCode())
        .isEqualTo(401);
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void a2aRefusesMissingAndWrongKeysWithoutStartingATask() {
    String before = gateway.recorded();
    String send = A2aCalls.send("r1", "hi", false);
    for (String[] headers :
        List.of(
            new String[0],
            new String[] {"X-API-Key", MCP_KEY},
            new String[] {"X-API-Key", A2A_KEY + "x"},
            new String[] {"Authorization", "Bearer " + A2A_KEY})) {
      assertThat(gateway.post("/a2a/", send, headers).statusCode())
          .as(List.of(headers).toString())
          .isEqualTo(401);
    }
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void internalRoutesNeedTheInternalToken() {
    String id = gateway.seedTask("auth-internal", MCP_OWNER);
    for (String[] headers :
        List.of(
            new String[0],
            new String[] {"Authorization", "Bearer " + MCP_KEY},
            new String[] {TaskViewConfig.INTERNAL_TOKEN_HEADER, TOKEN + "x"},
            new String[] {TaskViewConfig.INTERNAL_TOKEN_HEADER, A2A_KEY})) {
      assertThat(gateway.get("/internal/tasks/" + id, headers).statusCode())
          .as(List.of(headers).toString())
          .isEqualTo(403);
      assertThat(gateway.get("/internal/tasks?owner=" + MCP_OWNER, headers).statusCode())
          .isEqualTo(403);
    }
    String[] right = {TaskViewConfig.INTERNAL_TOKEN_HEADER, TOKEN};
    assertThat(gateway.get("/internal/tasks/" + id, right).statusCode()).isEqualTo(200);
    assertThat(gateway.get("/internal/tasks/no-such-task", right).statusCode()).isEqualTo(404);
    JsonNode listed = EdgeGateway.json(gateway.get("/internal/tasks?owner=" + MCP_OWNER, right));
    assertThat(listed.findValuesAsText("owner")).isNotEmpty().containsOnly(MCP_OWNER);
  }

  @Test
  void eachPrincipalSeesOnlyItsOwnTasks() {
    HttpResponse<String> call =
        gateway.post("/tools/call", "{\"name\":\"echo\"}", "Authorization", "Bearer " + MCP_KEY);
    assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
    String mcpTask = EdgeGateway.taskIdOfToolCall(call);
    assertThat(gateway.tasks.get(mcpTask).orElseThrow().owner()).isEqualTo(MCP_OWNER);
    HttpResponse<String> sent =
        gateway.post("/a2a/", A2aCalls.send("s1", "hi", false), "X-API-Key", A2A_KEY);
    assertThat(EdgeGateway.json(sent).has("result")).as(sent.body()).isTrue();
    String a2aTask = EdgeGateway.json(sent).get("result").get("id").asText();
    assertThat(gateway.tasks.get(a2aTask).orElseThrow().owner()).isEqualTo(A2A_OWNER);
    String strangers = gateway.seedTask("auth-stranger", "jwt:someone");

    String[] mcp = {"Authorization", "Bearer " + MCP_KEY};
    assertThat(gateway.get("/tasks/" + mcpTask, mcp).statusCode()).isEqualTo(200);
    assertThat(gateway.status("GET", "/stream/" + mcpTask, null, mcp)).isEqualTo(200);
    for (String foreign : List.of(a2aTask, strangers)) {
      HttpResponse<String> r = gateway.get("/tasks/" + foreign, mcp);
      assertThat(r.statusCode()).isEqualTo(404);
      assertThat(r.body()).isEqualTo(gateway.get("/tasks/x", mcp).body().replace("x", foreign));
      assertThat(gateway.status("GET", "/stream/" + foreign, null, mcp)).isEqualTo(404);
    }

    String before = gateway.recorded();
    for (String foreign : List.of(mcpTask, strangers)) {
      String unknownMessage = "Task not found: " + foreign;
      for (String call2 :
          List.of(
              A2aCalls.call("tasks/get", "{\"id\":\"" + foreign + "\"}"),
              A2aCalls.call("tasks/cancel", "{\"id\":\"" + foreign + "\"}"),
              A2aCalls.call("tasks/resubscribe", "{\"id\":\"" + foreign + "\"}"),
              A2aCalls.call("tasks/pushNotificationConfig/list", "{\"id\":\"" + foreign + "\"}"),
              A2aCalls.call(
                  "message/send",
                  "{\"message\":{\"role\":\"user\",\"messageId\":\"m\",\"taskId\":\""
                      + foreign
                      + "\",\"parts\":[{\"kind\":\"text\",\"text\":\"more\"}]},\"configuration\":{\"blocking\":false}}"))) {
        JsonNode error =
            EdgeGateway.json(
                    gateway.post(
                        "/a2a/", call2, "X-API-Key", A2A_KEY, "Accept", "application/json"))
                .get("error");
        assertThat(error).as(call2).isNotNull();
        assertThat(error.get("code").asInt()).as(call2).isEqualTo(-32001);
        assertThat(error.get("message").asText()).isEqualTo(unknownMessage);
      }
    }
    assertThat(gateway.recorded()).as("no foreign task was canceled or resumed").isEqualTo(before);

    JsonNode listed =
        EdgeGateway.json(
            gateway.post("/a2a/", A2aCalls.call("tasks/list", "{}"), "X-API-Key", A2A_KEY));
    assertThat(listed.get("result").get("tasks").findValuesAsText("id")).containsExactly(a2aTask);
    assertThat(gateway.tasks.eventsOf(mcpTask))
        .extracting(TaskEvent::type)
        .containsExactly(TaskEvent.CREATED);
  }

  @Test
  void withoutAnInternalTokenInternalRoutesAreOffWhileClientsAuthenticate() throws Exception {
    try (EdgeGateway noToken =
        EdgeGateway.start(GatewayMode.TESTING, Map.of("SVC_A2A_API_KEY", A2A_KEY))) {
      String id = noToken.seedTask("auth-no-token", A2A_OWNER);
      for (String path : List.of("/internal/tasks/" + id, "/internal/tasks?owner=" + A2A_OWNER)) {
        HttpResponse<String> r = noToken.get(path, "X-API-Key", A2A_KEY);
        assertThat(r.statusCode()).as(path).isEqualTo(403);
        assertThat(r.body()).contains("SVC_INTERNAL_TOKEN");
      }
    }
  }

  @Test
  void theMeshModeIsInternalAndReadsEveryTask() throws Exception {
    try (EdgeGateway mesh =
        EdgeGateway.start(GatewayMode.MESH, Map.of("SVC_MCP_API_KEY", MCP_KEY))) {
      String id = mesh.seedTask("auth-mesh", MCP_OWNER);
      assertThat(mesh.get("/tasks/" + id).statusCode()).isEqualTo(200);
      assertThat(mesh.get("/mesh/" + id).statusCode()).isEqualTo(200);
    }
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.Closing;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
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
 * Every route of the api deployment with no, wrong and right credentials, and tasks isolated by
 * owner across the two auth domains (an MCP client cannot see an A2A client's task and back).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthMatrixIT {
  private static final String MCP_KEY = "mcp-" + UUID.randomUUID();
  private static final String A2A_KEY = "a2a-" + UUID.randomUUID();
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static Gateway gateway;
  private static String base;

  /** A credential style: how to send it, and the right and a wrong value. */
  private enum Cred {
    NONE,
    WRONG,
    RIGHT
  }

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}, a2a: {}}\n");
    Map<String, String> env =
        TaskHttp.env(
            "auth-matrix-" + UUID.randomUUID().toString().substring(0, 8),
            dir.resolve("state"),
            flows,
            TaskHttp.freePort());
    env.put("SVC_GATEWAY_MODE", "api");
    env.put("SVC_MCP_API_KEY", MCP_KEY);
    env.put("SVC_A2A_API_KEY", A2A_KEY);
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
  }

  @AfterAll
  static void stop() {
    Closing.closeAll(gateway);
  }

  @Test
  void publicRoutesNeedNothing() throws Exception {
    for (String path :
        List.of("/health", "/.well-known/agent.json", "/.well-known/agent-card.json")) {
      assertThat(send(get(path)).statusCode()).as(path).isEqualTo(200);
    }
  }

  @Test
  void mcpRoutesAnswer401WithoutTheRightBearer() throws Exception {
    List<String> mcpRoutes =
        List.of(
            "POST /mcp",
            "GET /mcp/sse",
            "POST /mcp/message?sessionId=x",
            "POST /tools/call",
            "GET /stream/x",
            "GET /tasks/x");
    for (String route : mcpRoutes) {
      for (Cred c : new Cred[] {Cred.NONE, Cred.WRONG}) {
        HttpRequest.Builder r = request(route);
        if (c == Cred.WRONG) {
          r.header("Authorization", "Bearer " + A2A_KEY); // a key of the other domain is wrong here
        }
        HttpResponse<String> resp = send(r);
        assertThat(resp.statusCode()).as(route + " " + c).isEqualTo(401);
        assertThat(resp.headers().firstValue("WWW-Authenticate").orElse(""))
            .startsWith("Bearer realm=");
      }
      // status only: with the right key GET /mcp/sse opens a stream that stays open
      assertThat(status(request(route).header("Authorization", "Bearer " + MCP_KEY)))
          .as(route + " RIGHT")
          .isNotEqualTo(401);
    }
  }

  @Test
  void internalRoutesAreRefusedWhenClientsAuthenticateAndNoInternalTokenIsSet() throws Exception {
    for (String cred : new String[] {null, "Bearer " + MCP_KEY, "Bearer " + A2A_KEY}) {
      HttpRequest.Builder r = get("/internal/tasks/x");
      if (cred != null) {
        r.header("Authorization", cred);
      }
      HttpResponse<String> resp = send(r);
      assertThat(resp.statusCode()).as(cred).isEqualTo(403);
      assertThat(resp.body()).contains("SVC_INTERNAL_TOKEN");
    }
  }

  @Test
  void a2aAnswers401WithoutTheRightKey() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"x\"}}";
    assertThat(send(a2a(body)).statusCode()).isEqualTo(401);
    assertThat(send(a2a(body).header("X-API-Key", MCP_KEY)).statusCode()).isEqualTo(401);
    assertThat(send(a2a(body).header("X-API-Key", A2A_KEY + "x")).statusCode()).isEqualTo(401);
    HttpResponse<String> right = send(a2a(body).header("X-API-Key", A2A_KEY));
    assertThat(right.statusCode()).isEqualTo(200);
    assertThat(Json.MAPPER.readTree(right.body()).get("error").get("code").asInt())
        .isEqualTo(-32001);
  }

  @Test
  void meshAndOauthRoutesDoNotExistInApiMode() throws Exception {
    for (String route :
        List.of(
            "GET /mesh/x",
            "GET /mesh/x/stream",
            "GET /mesh/x/active",
            "POST /mesh/x/progress",
            "POST /mesh/x/final",
            "POST /mesh/x/fly",
            "POST /mesh",
            "POST /mesh/config-reload",
            "GET /.well-known/oauth-protected-resource",
            "GET /.well-known/oauth-authorization-server",
            "POST /oauth/register",
            "GET /oauth/authorize",
            "POST /oauth/token")) {
      assertThat(send(request(route).header("Authorization", "Bearer " + MCP_KEY)).statusCode())
          .as(route)
          .isEqualTo(404);
    }
    // the mesh's child-task create is not served: the path is the api mode's task listing (GET
    // only)
    assertThat(
            send(request("POST /tasks").header("Authorization", "Bearer " + MCP_KEY)).statusCode())
        .as("POST /tasks")
        .isEqualTo(405);
  }

  @Test
  void aClientNeverSeesTheOtherDomainsTasks() throws Exception {
    HttpResponse<String> call =
        send(
            post("/tools/call", "{\"name\":\"echo\",\"arguments\":{}}")
                .header("Authorization", "Bearer " + MCP_KEY));
    String mcpTask =
        Json.MAPPER
            .readTree(Json.MAPPER.readTree(call.body()).get("content").get(0).get("text").asText())
            .get("task_id")
            .asText();
    HttpResponse<String> sent =
        send(
            a2a("{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"message/send\","
                    + "\"params\":{\"message\":{\"role\":\"user\",\"messageId\":\"m1\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]},"
                    + "\"configuration\":{\"blocking\":false}}}")
                .header("X-API-Key", A2A_KEY));
    JsonNode a2aResult = Json.MAPPER.readTree(sent.body());
    assertThat(a2aResult.has("result")).as(sent.body()).isTrue();
    String a2aTask = a2aResult.get("result").get("id").asText();

    // both tasks exist for their owners
    assertThat(awaitStatus(get("/tasks/" + mcpTask).header("Authorization", "Bearer " + MCP_KEY)))
        .isEqualTo(200);
    HttpRequest.Builder ownGet =
        a2a("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\","
                + "\"params\":{\"id\":\""
                + a2aTask
                + "\"}}")
            .header("X-API-Key", A2A_KEY);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    JsonNode own = Json.MAPPER.readTree(send(ownGet).body());
    while (!own.has("result") && System.nanoTime() < deadline) {
      Thread.sleep(20); // the created event folds asynchronously
      own = Json.MAPPER.readTree(send(ownGet).body());
    }
    assertThat(own.has("result")).as(own.toString()).isTrue();

    // and are invisible (same answer as unknown) to the other
    assertThat(
            send(get("/tasks/" + a2aTask).header("Authorization", "Bearer " + MCP_KEY))
                .statusCode())
        .isEqualTo(404);
    assertThat(status(get("/stream/" + a2aTask).header("Authorization", "Bearer " + MCP_KEY)))
        .isEqualTo(404);
    JsonNode foreign =
        Json.MAPPER.readTree(
            send(a2a("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/get\","
                        + "\"params\":{\"id\":\""
                        + mcpTask
                        + "\"}}")
                    .header("X-API-Key", A2A_KEY))
                .body());
    JsonNode unknown =
        Json.MAPPER.readTree(
            send(a2a("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/get\","
                        + "\"params\":{\"id\":\"no-such-task\"}}")
                    .header("X-API-Key", A2A_KEY))
                .body());
    assertThat(foreign.get("error").get("code").asInt()).isEqualTo(-32001);
    assertThat(foreign.get("error").get("message").asText())
        .isEqualTo(unknown.get("error").get("message").asText().replace("no-such-task", mcpTask));
  }

  private static int awaitStatus(HttpRequest.Builder req) throws Exception {
    // the created event folds asynchronously: 200 once it has; whatever answers last otherwise
    try {
      return Await.until(
          () -> send(req).statusCode(), code -> code == 200, Duration.ofSeconds(30), "200");
    } catch (AssertionError notYet) {
      return send(req).statusCode();
    }
  }

  private static HttpRequest.Builder request(String route) {
    String[] mp = route.split(" ", 2);
    return mp[0].equals("GET")
        ? get(mp[1])
        : post(mp[1], "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  }

  /**
   * A JSON-RPC call that wants one JSON answer (with text/event-stream accepted, message/send
   * streams).
   */
  private static HttpRequest.Builder a2a(String body) {
    return HttpRequest.newBuilder(URI.create(base + "/a2a/"))
        .timeout(java.time.Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static HttpRequest.Builder get(String path) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(java.time.Duration.ofSeconds(10))
        .GET();
  }

  private static HttpRequest.Builder post(String path, String body) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(java.time.Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  /** The status line only; the body (maybe an endless SSE stream) is closed unread. */
  private static int status(HttpRequest.Builder req) throws Exception {
    HttpResponse<java.io.InputStream> r =
        HTTP.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    r.body().close();
    return r.statusCode();
  }

  private static HttpResponse<String> send(HttpRequest.Builder req) throws Exception {
    return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }
}

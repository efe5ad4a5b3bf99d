package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * MCP on the gateway (api mode, static bearer key) driven by the official TypeScript SDK client
 * over both transports, plus raw HTTP checks of auth and DNS-rebinding protection.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class McpClientIT {
  private static final String KEY = "s3cret-" + UUID.randomUUID();
  private static final String FLOWS =
      """
      flows:
        - name: echo
          entrypoint: echo
          mcp: {}
        - name: shout
          entrypoint: upper
          route_next: [reverse]
          description: shouts
          mcp:
            inputSchema:
              type: object
              properties: {text: {type: string}}
              required: [text]
      """;
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static Path flows;
  private static Gateway gateway;
  private static String base;
  private static Path nodeDir;

  @BeforeAll
  static void start() throws Exception {
    flows = dir.resolve("flows.yaml");
    Files.writeString(flows, FLOWS);
    Map<String, String> env = TaskHttp.singleEnv("api", dir, flows, "mcp-it");
    env.put("SVC_CONFIG_POLL_INTERVAL", "200ms");
    env.put("SVC_MCP_API_KEY", KEY);
    env.put("SVC_NAMESPACE", "mcpit");
    // no actor runs here: a plain call answers the still-running task's handle after this wait
    env.put("SVC_TOOL_CALL_WAIT", "2s");
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
    nodeDir = NodeClients.ensureInstalled();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"streamable", "sse"})
  void theOfficialClientListsCallsAndHearsToolChanges(String transport) throws Exception {
    Files.writeString(flows, FLOWS);
    Process node =
        new ProcessBuilder("node", "mcp-check.mjs", base, KEY, transport)
            .directory(nodeDir.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    List<JsonNode> events = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        JsonNode e = Json.MAPPER.readTree(line);
        events.add(e);
        if (e.get("event").asText().equals("listed")) {
          Files.writeString(flows, FLOWS + "  - {name: extra, entrypoint: echo, mcp: {}}\n");
        }
      }
    } finally {
      Files.writeString(flows, FLOWS);
      // the next run's client must not connect while "extra" is still being withdrawn: it would
      // hear that withdrawal as the change it waits for
      awaitUnknownTool("extra");
    }
    assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(node.exitValue()).as(events.toString()).isZero();

    JsonNode connected = find(events, "connected");
    assertThat(connected.get("server").get("name").asText()).isEqualTo("taskmesh");
    if (transport.equals("streamable")) {
      assertThat(connected.get("session").asText()).isNotBlank();
    }
    JsonNode called = find(events, "called").get("result");
    assertThat(called.path("isError").asBoolean(false)).isFalse();
    JsonNode text = called.get("structuredContent");
    assertThat(text.get("task_id").asText()).isNotBlank();
    assertThat(called.get("content").get(0).get("text").asText())
        .contains("still running after 2 s", "/tasks/" + text.get("task_id").asText());
    assertThat(text.get("status_url").asText()).isEqualTo("/tasks/" + text.get("task_id").asText());
    assertThat(text.get("stream_url").asText())
        .isEqualTo("/stream/" + text.get("task_id").asText());

    JsonNode bad = find(events, "bad-call").get("result");
    assertThat(bad.get("isError").asBoolean()).isTrue();
    assertThat(bad.get("content").get(0).get("text").asText()).contains("text");

    assertThat(find(events, "listed").get("tools"))
        .extracting(JsonNode::asText)
        .containsExactly("echo", "shout");
    JsonNode changed = find(events, "changed");
    assertThat(changed.get("notified").asBoolean()).as("notifications/tools/list_changed").isTrue();
    assertThat(changed.get("tools"))
        .extracting(JsonNode::asText)
        .containsExactly("echo", "extra", "shout");
  }

  @Test
  void everyMcpRouteRefusesMissingOrWrongCredentials() throws Exception {
    for (String auth : new String[] {null, "Bearer wrong", "Basic " + KEY, "Bearer " + KEY + "x"}) {
      for (HttpRequest.Builder req :
          List.of(
              post("/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
              HttpRequest.newBuilder(URI.create(base + "/mcp/sse")).GET(),
              post("/mcp/message?sessionId=x", "{}"),
              post("/tools/call", "{\"name\":\"echo\"}"),
              HttpRequest.newBuilder(URI.create(base + "/stream/some-task")).GET())) {
        if (auth != null) {
          req.header("Authorization", auth);
        }
        HttpResponse<String> r = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(req.build().uri() + " with " + auth).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate").orElse(""))
            .startsWith("Bearer realm=");
      }
    }
    HttpResponse<String> ok =
        HTTP.send(
            post("/tools/call", "{\"name\":\"echo\",\"arguments\":{}}")
                .header("Authorization", "Bearer " + KEY)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    String id =
        Json.MAPPER
            .readTree(Json.MAPPER.readTree(ok.body()).get("content").get(0).get("text").asText())
            .get("task_id")
            .asText();
    HttpResponse<String> read = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) { // the created event is folded asynchronously
      read =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(base + "/tasks/" + id))
                  .header("Authorization", "Bearer " + KEY)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (read.statusCode() == 200) {
        break;
      }
      Thread.sleep(20);
    }
    assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
    assertThat(
            HTTP.send(
                    HttpRequest.newBuilder(URI.create(base + "/tasks/" + id)).GET().build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(401);
    assertThat(
            HTTP.send(
                    HttpRequest.newBuilder(URI.create(base + "/tasks/" + id))
                        .header("Authorization", "Bearer nope")
                        .GET()
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(401);
    HttpResponse<String> invalid =
        HTTP.send(
            post("/tools/call", "{\"name\":\"shout\",\"arguments\":{}}")
                .header("Authorization", "Bearer " + KEY)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(invalid.statusCode()).isEqualTo(400);
    assertThat(invalid.body()).contains("text");
  }

  @Test
  void apiModeServesNoMeshRoutes() throws Exception {
    for (String path : List.of("/mesh/x", "/mesh/x/active")) {
      assertThat(
              HTTP.send(
                      HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
                      HttpResponse.BodyHandlers.ofString())
                  .statusCode())
          .as(path)
          .isEqualTo(404);
    }
    assertThat(
            HTTP.send(post("/mesh/x/progress", "{}").build(), HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(404);
  }

  @Test
  void aForeignHostOrOriginIsRefused() throws Exception {
    assertThat(rawPost("evil.example:80", null)).startsWith("HTTP/1.1 421");
    assertThat(rawPost("127.0.0.1:" + gateway.port(), "http://evil.example"))
        .startsWith("HTTP/1.1 403");
    assertThat(rawPost("localhost:" + gateway.port(), "http://localhost:3000"))
        .doesNotStartWith("HTTP/1.1 4");
  }

  /** A raw request, because java.net.http will not send a forged Host header. */
  private static String rawPost(String host, String origin) throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
    try (Socket s = new Socket("127.0.0.1", gateway.port())) {
      s.setSoTimeout(10_000);
      String req =
          "POST /mcp HTTP/1.1\r\nHost: "
              + host
              + "\r\n"
              + (origin == null ? "" : "Origin: " + origin + "\r\n")
              + "Authorization: Bearer "
              + KEY
              + "\r\nContent-Type: application/json\r\n"
              + "Accept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: "
              + body.getBytes(StandardCharsets.UTF_8).length
              + "\r\n\r\n"
              + body;
      OutputStream out = s.getOutputStream();
      out.write(req.getBytes(StandardCharsets.UTF_8));
      out.flush();
      return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8))
          .readLine();
    }
  }

  /**
   * Waits until {@code POST /tools/call} answers 404 for the tool (the poller applied the config).
   */
  private static void awaitUnknownTool(String name) {
    Await.until(
        () ->
            HTTP.send(
                    post("/tools/call", "{\"name\":\"" + name + "\",\"arguments\":{}}")
                        .header("Authorization", "Bearer " + KEY)
                        .build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode(),
        status -> status == 404,
        Duration.ofSeconds(10),
        "tool " + name + " still known after the flow config was restored");
  }

  private static HttpRequest.Builder post(String path, String body) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private static JsonNode find(List<JsonNode> events, String name) {
    return events.stream()
        .filter(e -> e.get("event").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + name + "' event in " + events));
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.McpAuth;
import io.taskmesh.gateway.ui.UiRoutes;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard's routes with client auth on (a static MCP key), in-process over in-memory ports:
 * its files are public, its data is not; the session cookie stands in for the bearer header on the
 * GET event streams and nowhere else; the task-list stream carries the caller's tasks only; without
 * mesh-api the envelope routes say so rather than fail.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeUiTest {
  private static final String KEY = "edge-ui-key";
  private static final String BEARER = "Bearer " + KEY;
  private static EdgeGateway gateway;

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.API, Map.of("SVC_MCP_API_KEY", KEY));
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  @Test
  void theFilesAreServedToAnyoneAndNothingElseUnderUi() {
    HttpResponse<String> index = gateway.get("/ui/");
    assertThat(index.statusCode()).isEqualTo(200);
    assertThat(index.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(index.body()).contains("<script src=\"/ui/app.js\"");
    HttpResponse<String> js = gateway.get("/ui/app.js");
    assertThat(js.statusCode()).isEqualTo(200);
    assertThat(js.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
    assertThat(gateway.get("/ui/style.css").body()).contains(".actor");
    assertThat(gateway.get("/ui/nope.js").statusCode()).isEqualTo(404);
    assertThat(gateway.get("/ui/..%2Fgateway.properties").statusCode()).isEqualTo(404);
    assertThat(gateway.get("/ui/App.class").statusCode()).isEqualTo(404);
  }

  @Test
  void withoutTheTokenTheDataIsRefused() {
    String own = gateway.seedTask("ui-refused", McpAuth.STATIC_KEY_PRINCIPAL);
    for (String route :
        List.of(
            "GET /ui/flows",
            "POST /ui/session",
            "GET /tasks/stream",
            "GET /stream/" + own,
            "GET /ui/mesh",
            "GET /ui/mesh/some-envelope",
            "GET /ui/mesh/stream")) {
      String[] mp = route.split(" ");
      assertThat(gateway.status(mp[0], mp[1], null)).as(route).isEqualTo(401);
      assertThat(gateway.status(mp[0], mp[1], null, "Authorization", "Bearer wrong"))
          .as(route)
          .isEqualTo(401);
      assertThat(gateway.status(mp[0], mp[1], null, "Cookie", UiRoutes.COOKIE + "=wrong"))
          .as(route)
          .isEqualTo(401);
    }
  }

  @Test
  void flowsComeWithTheirRouteAndInputSchema() {
    JsonNode flows = EdgeGateway.json(gateway.get("/ui/flows", "Authorization", BEARER));

    assertThat(flows.get("flows").findValuesAsText("name"))
        .containsExactly("echo", "skill-only", "typed");
    JsonNode typed = flows.get("flows").get(2);
    assertThat(typed.get("route").toString()).isEqualTo("[\"typed\"]");
    assertThat(typed.at("/inputSchema/required/0").asText()).isEqualTo("n");
    assertThat(flows.get("flows").get(0).get("route").toString()).isEqualTo("[\"echo\",\"upper\"]");
  }

  @Test
  void aFlowThatIsOnlyAnA2aSkillIsListedAndStartsAsTheCallersOwnTask() {
    JsonNode flows = EdgeGateway.json(gateway.get("/ui/flows", "Authorization", BEARER));
    JsonNode skill = flows.get("flows").get(1);
    assertThat(skill.get("a2a").asBoolean()).isTrue();
    assertThat(skill.get("inputSchema").toString()).isEqualTo("{\"type\":\"object\"}");
    assertThat(flows.get("flows").get(0).has("a2a")).isFalse();

    HttpResponse<String> started =
        gateway.post(
            "/ui/flows/skill-only/start", "{\"text\":\"from the page\"}", "Authorization", BEARER);
    assertThat(started.statusCode()).as(started.body()).isEqualTo(201);
    String id = EdgeGateway.json(started).get("task_id").asText();
    assertThat(
            gateway.queue.dispatched().stream()
                .anyMatch(
                    e -> e.id().equals(id) && e.payload().toString().contains("from the page")))
        .isTrue();
    // the caller of the REST routes owns it, so the page that started it can follow it
    assertThat(gateway.get("/tasks/" + id, "Authorization", BEARER).statusCode()).isEqualTo(200);
  }

  @Test
  void startingAFlowByItsSkillRefusesToolsUnknownFlowsBadInputAndStrangersAndStartsNothing() {
    String before = gateway.recorded();
    assertThat(gateway.post("/ui/flows/skill-only/start", "{}").statusCode()).isEqualTo(401);
    for (String path : List.of("/ui/flows/echo/start", "/ui/flows/nope/start")) {
      HttpResponse<String> r = gateway.post(path, "{}", "Authorization", BEARER);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(r.body()).as(path).contains("only as an A2A skill").doesNotContain("Exception");
    }
    for (String body : List.of("[1]", "\"text\"", "{not json")) {
      HttpResponse<String> r =
          gateway.post("/ui/flows/skill-only/start", body, "Authorization", BEARER);
      assertThat(r.statusCode()).as(body).isEqualTo(400);
      assertThat(r.body()).as(body).doesNotContain("Exception", "jackson");
    }
    assertThat(gateway.recorded()).isEqualTo(before);
  }

  @Test
  void withoutMeshApiTheEnvelopeRoutesSaySoPlainly() {
    JsonNode list = EdgeGateway.json(gateway.get("/ui/mesh", "Authorization", BEARER));
    assertThat(list.get("configured").asBoolean()).isFalse();
    assertThat(list.get("messages")).isEmpty();
    for (String path : List.of("/ui/mesh/some-envelope", "/ui/mesh/stream")) {
      HttpResponse<String> r = gateway.get(path, "Authorization", BEARER);
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(EdgeGateway.json(r).get("error").asText())
          .as(path)
          .isEqualTo("mesh_api_not_configured");
    }
  }

  @Test
  void theSessionCookieOpensTheEventStreamsOnly() {
    HttpResponse<String> session = gateway.post("/ui/session", null, "Authorization", BEARER);
    assertThat(session.statusCode()).isEqualTo(204);
    String setCookie = session.headers().firstValue("Set-Cookie").orElse("");
    assertThat(setCookie)
        .startsWith(UiRoutes.COOKIE + "=")
        .contains("HttpOnly", "SameSite=Strict", "Max-Age=900", "Path=/");
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));
    String sessionId = cookie.substring(cookie.indexOf('=') + 1);
    // an opaque random id, not the key: a leaked cookie does not leak the key
    assertThat(sessionId).doesNotContain(KEY).matches("[A-Za-z0-9_-]{43}");
    assertThat(
            gateway
                .post("/ui/session", null, "Authorization", BEARER)
                .headers()
                .firstValue("Set-Cookie")
                .orElse(""))
        .as("each session its own id")
        .doesNotContain(sessionId);
    String own = gateway.seedTask("ui-cookie", McpAuth.STATIC_KEY_PRINCIPAL);
    // the raw key as a cookie, as the old dashboard set it, opens nothing
    assertThat(gateway.status("GET", "/stream/" + own, null, "Cookie", UiRoutes.COOKIE + "=" + KEY))
        .isEqualTo(401);

    assertThat(gateway.status("GET", "/stream/" + own, null, "Cookie", cookie)).isEqualTo(200);
    assertThat(gateway.status("GET", "/tasks/stream", null, "Cookie", cookie)).isEqualTo(200);
    // taken by the envelope stream too (this gateway has no mesh-api: 404, not 401)
    assertThat(gateway.status("GET", "/ui/mesh/stream", null, "Cookie", cookie)).isEqualTo(404);
    assertThat(gateway.get("/ui/mesh", "Cookie", cookie).statusCode()).isEqualTo(401);
    assertThat(gateway.get("/ui/mesh/some-envelope", "Cookie", cookie).statusCode()).isEqualTo(401);
    // no other route takes it: a page elsewhere could not act or read with it
    assertThat(gateway.get("/tasks", "Cookie", cookie).statusCode()).isEqualTo(401);
    assertThat(gateway.get("/tasks/" + own, "Cookie", cookie).statusCode()).isEqualTo(401);
    assertThat(gateway.get("/ui/flows", "Cookie", cookie).statusCode()).isEqualTo(401);
    String before = gateway.recorded();
    assertThat(gateway.post("/tools/call", "{\"name\":\"echo\"}", "Cookie", cookie).statusCode())
        .isEqualTo(401);
    assertThat(gateway.post("/tasks/" + own + "/cancel", null, "Cookie", cookie).statusCode())
        .isEqualTo(401);
    assertThat(gateway.recorded()).isEqualTo(before);
    HttpResponse<String> out = gateway.send("DELETE", "/ui/session", null, "Cookie", cookie);
    assertThat(out.statusCode()).isEqualTo(204);
    assertThat(out.headers().firstValue("Set-Cookie").orElse(""))
        .startsWith(UiRoutes.COOKIE + "=;")
        .contains("Max-Age=0");
    // signed out on the server too: the same cookie, kept by a client, opens nothing any more
    assertThat(gateway.status("GET", "/tasks/stream", null, "Cookie", cookie)).isEqualTo(401);
    assertThat(gateway.status("GET", "/stream/" + own, null, "Cookie", cookie)).isEqualTo(401);
  }

  @Test
  void theTaskListStreamCarriesNewTasksOfTheCallerOnly() throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(gateway.url("/tasks/stream")))
            .header("Authorization", BEARER)
            .header("Accept", "text/event-stream")
            .build();
    HttpResponse<InputStream> r =
        HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    try (BufferedReader lines =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      assertThat(lines.readLine()).as("the stream is open").isEqualTo(": tasks");
      gateway.seedTask("ui-foreign", "someone-else");
      gateway.seedTask("ui-mine", McpAuth.STATIC_KEY_PRINCIPAL);
      StringBuilder seen = new StringBuilder();
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      String line;
      while (System.nanoTime() < deadline && (line = lines.readLine()) != null) {
        seen.append(line).append('\n');
        if (line.startsWith("data:") && line.contains("ui-mine")) {
          break;
        }
      }
      assertThat(seen.toString())
          .contains(
              "event: update", "\"id\":\"ui-mine\"", "\"status\":\"pending\"", "\"flow\":\"echo\"")
          .doesNotContain("ui-foreign");
    }
  }
}

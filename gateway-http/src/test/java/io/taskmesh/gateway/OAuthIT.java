package io.taskmesh.gateway;

import static io.taskmesh.gateway.OAuthFlows.REDIRECT;
import static io.taskmesh.gateway.OAuthFlows.authorizeParams;
import static io.taskmesh.gateway.OAuthFlows.authorizeRaw;
import static io.taskmesh.gateway.OAuthFlows.callTool;
import static io.taskmesh.gateway.OAuthFlows.code;
import static io.taskmesh.gateway.OAuthFlows.error;
import static io.taskmesh.gateway.OAuthFlows.exchangeForm;
import static io.taskmesh.gateway.OAuthFlows.get;
import static io.taskmesh.gateway.OAuthFlows.login;
import static io.taskmesh.gateway.OAuthFlows.redirected;
import static io.taskmesh.gateway.OAuthFlows.refreshForm;
import static io.taskmesh.gateway.OAuthFlows.register;
import static io.taskmesh.gateway.OAuthFlows.registerRaw;
import static io.taskmesh.gateway.OAuthFlows.taskId;
import static io.taskmesh.gateway.OAuthFlows.token;
import static io.taskmesh.gateway.OAuthFlows.tokens;
import static io.taskmesh.gateway.OAuthFlows.verifier;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.BadInputs;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.gateway.oauth.TokenService;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ClientText;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gateway as its own OAuth 2.1 authorization server over real HTTP with a real Postgres:
 * gateway A (strict, movable clock) and replica B (registration token, test-only loopback client
 * metadata documents) share one database. The official MCP TypeScript SDK client runs the whole
 * flow on both transports; everything else is the negative matrix.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class OAuthIT {
  private static final String SECRET = "oauth-it-secret-" + UUID.randomUUID();
  private static final String REG_TOKEN = "reg-" + UUID.randomUUID();
  private static final String FLOWS =
      """
      flows:
        - name: echo
          entrypoint: echo
          mcp: {}
      """;
  @TempDir static Path dir;
  private static final OffsetClock CLOCK = new OffsetClock();
  private static final String RUN = "oauth-it-" + UUID.randomUUID().toString().substring(0, 8);
  private static Path flows;
  private static Gateway a;
  private static Gateway b;
  private static String baseA;
  private static String baseB;
  private static int portB;

  /** Where the metadata-document test serves its documents; B accepts only {@code /allowed/}. */
  private static int docsPort;

  @BeforeAll
  static void start() throws Exception {
    flows = dir.resolve("flows.yaml");
    Files.writeString(flows, FLOWS);
    int portA = TaskHttp.freePort();
    portB = TaskHttp.freePort();
    docsPort = TaskHttp.freePort();
    baseA = "http://127.0.0.1:" + portA;
    baseB = "http://127.0.0.1:" + portB;
    a = startGateway("a", portA, Map.of(), CLOCK);
    b = startReplicaB();
  }

  /** A replica behind the same public URL (issuer), with its own port and task topics. */
  private static Gateway startReplicaB() {
    return startGateway(
        "b",
        portB,
        Map.of(
            "SVC_MCP_OAUTH_ISSUER",
            baseA,
            "SVC_MCP_OAUTH_REGISTRATION_TOKEN",
            REG_TOKEN,
            "SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK",
            "true",
            "SVC_MCP_OAUTH_CIMD_ALLOWED",
            "http://127.0.0.1:" + docsPort + "/allowed/"),
        null);
  }

  static Gateway startGateway(String name, int port, Map<String, String> extra, Clock clock) {
    Map<String, String> env =
        TaskHttp.env(RUN + "-" + name, dir.resolve("state-" + name), flows, port);
    env.put("SVC_GATEWAY_MODE", "api");
    env.put("SVC_CONFIG_POLL_INTERVAL", "200ms");
    // no actor runs here: a plain MCP call answers the still-running task's handle after this wait
    env.put("SVC_TOOL_CALL_WAIT", "2s");
    env.put("SVC_MCP_OAUTH_ENABLED", "true");
    env.put("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:" + port);
    env.put("SVC_MCP_OAUTH_SECRET", SECRET);
    env.put("SVC_DATABASE_URL", LocalPostgres.shared().jdbcUrl());
    env.putAll(extra);
    GatewayConfig config = GatewayConfig.fromEnv(env);
    if (clock != null) {
      config = config.withOAuth(config.oauth().withClock(clock));
    }
    return Gateway.start(config, TaskSettings.fromEnv(env));
  }

  @AfterAll
  static void stop() {
    for (Gateway g : new Gateway[] {a, b}) {
      if (g != null) {
        g.close();
      }
    }
  }

  // ---- discovery -------------------------------------------------------------------------

  @Test
  void metadataDocumentsDescribeTheServer() throws Exception {
    JsonNode as =
        Json.MAPPER.readTree(get(baseA + "/.well-known/oauth-authorization-server", null).body());
    assertThat(as.get("issuer").asText()).isEqualTo(baseA);
    assertThat(as.get("authorization_endpoint").asText()).isEqualTo(baseA + "/oauth/authorize");
    assertThat(as.get("token_endpoint").asText()).isEqualTo(baseA + "/oauth/token");
    assertThat(as.get("registration_endpoint").asText()).isEqualTo(baseA + "/oauth/register");
    assertThat(as.get("scopes_supported"))
        .extracting(JsonNode::asText)
        .containsExactly("mcp:invoke", "mcp:read");
    assertThat(as.get("response_types_supported"))
        .extracting(JsonNode::asText)
        .containsExactly("code");
    assertThat(as.get("grant_types_supported"))
        .extracting(JsonNode::asText)
        .containsExactly("authorization_code", "refresh_token");
    assertThat(as.get("code_challenge_methods_supported"))
        .extracting(JsonNode::asText)
        .containsExactly("S256");
    assertThat(as.get("token_endpoint_auth_methods_supported"))
        .extracting(JsonNode::asText)
        .containsExactly("none");
    assertThat(as.get("authorization_response_iss_parameter_supported").asBoolean()).isTrue();
    assertThat(as.get("client_id_metadata_document_supported").asBoolean()).isTrue();

    JsonNode prm =
        Json.MAPPER.readTree(get(baseA + "/.well-known/oauth-protected-resource", null).body());
    assertThat(prm.get("resource").asText()).isEqualTo(baseA);
    assertThat(prm.get("authorization_servers"))
        .extracting(JsonNode::asText)
        .containsExactly(baseA);
    JsonNode mcpPrm =
        Json.MAPPER.readTree(get(baseA + "/.well-known/oauth-protected-resource/mcp", null).body());
    assertThat(mcpPrm.get("resource").asText()).isEqualTo(baseA + "/mcp");
  }

  @Test
  void routesAreExactlyTheDocumentedOnesOfAnApiGatewayWithOAuth() {
    assertThat(RegisteredRoutes.of(a.app().javalin(), GatewayMode.API))
        .containsExactlyInAnyOrderElementsOf(
            ApiDocument.operationsServedBy("gateway:api", Set.of("oauth")));
  }

  @Test
  void metadataDocumentsCarryEveryFieldTheApiDocumentRequires() throws Exception {
    JsonNode schemas =
        Json.MAPPER.readTree(ApiDocument.openApiJson()).path("components").path("schemas");
    Map<String, String> documents =
        Map.of(
            "/.well-known/oauth-authorization-server", "AuthorizationServerMetadata",
            "/.well-known/oauth-protected-resource", "ProtectedResourceMetadata",
            "/.well-known/oauth-protected-resource/mcp/sse", "ProtectedResourceMetadata");
    for (Map.Entry<String, String> d : documents.entrySet()) {
      JsonNode answer = Json.MAPPER.readTree(get(baseA + d.getKey(), null).body());
      List<String> fields = new ArrayList<>();
      answer.fieldNames().forEachRemaining(fields::add);
      List<String> required = new ArrayList<>();
      schemas.path(d.getValue()).path("required").forEach(f -> required.add(f.asText()));
      assertThat(required).as(d.getKey()).isNotEmpty();
      assertThat(fields).as(d.getKey()).containsExactlyInAnyOrderElementsOf(required);
    }
  }

  @Test
  void every401NamesTheProtectedResourceMetadata() throws Exception {
    String expected =
        "Bearer realm=\"taskmesh\", resource_metadata=\""
            + baseA
            + "/.well-known/oauth-protected-resource\"";
    String forged = forgedToken();
    for (String auth : new String[] {null, "Bearer nope", "Bearer " + forged}) {
      for (HttpRequest.Builder req :
          List.of(
              post(baseA + "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
              HttpRequest.newBuilder(URI.create(baseA + "/mcp/sse")).GET(),
              post(baseA + "/tools/call", "{\"name\":\"echo\"}"),
              HttpRequest.newBuilder(URI.create(baseA + "/stream/x")).GET(),
              HttpRequest.newBuilder(URI.create(baseA + "/tasks/x")).GET())) {
        if (auth != null) {
          req.header("Authorization", auth);
        }
        HttpResponse<String> r =
            OAuthFlows.HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(req.build().uri() + " " + auth).isEqualTo(401);
        assertThat(r.headers().firstValue("WWW-Authenticate"))
            .as(req.build().uri().toString())
            .hasValue(expected);
      }
    }
  }

  // ---- the official SDK client ----------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"streamable", "sse"})
  void theOfficialClientCompletesTheWholeFlow(String transport) throws Exception {
    Path node = NodeClients.ensureInstalled();
    Process p =
        new ProcessBuilder("node", "mcp-oauth-check.mjs", baseA, transport)
            .directory(node.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    List<JsonNode> events = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        events.add(Json.MAPPER.readTree(line));
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(events.toString()).isZero();
    JsonNode authorized = find(events, "authorized");
    assertThat(authorized.get("iss").asText()).isEqualTo(baseA);
    assertThat(authorized.get("method").asText()).isEqualTo("S256");
    assertThat(authorized.get("resource").asText()).startsWith(baseA);
    assertThat(find(events, "listed").get("tools")).extracting(JsonNode::asText).contains("echo");
    assertThat(find(events, "called").get("result").path("isError").asBoolean(false)).isFalse();
    JsonNode refreshed = find(events, "refreshed-call");
    assertThat(refreshed.get("refreshes").asInt())
        .as("the SDK refreshed the spoilt token")
        .isEqualTo(1);
    assertThat(refreshed.get("result").path("isError").asBoolean(false)).isFalse();
    // the task the SDK client started belongs to its client id
    String clientId = find(events, "closed").get("client_id").asText();
    String task = find(events, "called").get("result").at("/structuredContent/task_id").asText();
    OAuthFlows.Tokens other = login(baseA, register(baseA, null));
    awaitVisible(baseA, task, loginAs(clientId));
    assertThat(get(baseA + "/tasks/" + task, other.access()).statusCode()).isEqualTo(404);
  }

  /**
   * The MCP conformance suite's {@code authorization} scenarios (metadata endpoint, authorization
   * code grant), as {@code run-authz-conformance.sh} of the shared kit runs them: the suite prints
   * the authorization URL and waits on its callback port; we play the browser.
   */
  @Test
  void theConformanceSuitesAuthorizationScenariosPass() throws Exception {
    Path node = NodeClients.ensureInstalled();
    int callback = TaskHttp.freePort();
    HttpResponse<String> reg =
        registerRaw(
            baseA,
            "{\"client_name\":\"conformance\",\"redirect_uris\":"
                + "[\"http://127.0.0.1:"
                + callback
                + "/callback\"]}",
            null);
    String client = Json.MAPPER.readTree(reg.body()).get("client_id").asText();
    Process p =
        new ProcessBuilder(
                node.resolve("node_modules/.bin/node").toString(),
                "node_modules/conformance-authz/dist/index.js",
                "authorization",
                "--url",
                baseA,
                "--client-id",
                client,
                "-p",
                Integer.toString(callback),
                "-o",
                dir.resolve("authz-results").toString())
            .directory(node.toFile())
            .redirectErrorStream(true)
            .start();
    StringBuilder log = new StringBuilder();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        log.append(line).append('\n');
        if (line.startsWith(baseA + "/oauth/authorize?")) {
          HttpResponse<String> auth = get(line.trim(), null);
          String location = auth.headers().firstValue("Location").orElseThrow();
          assertThat(location).startsWith("http://127.0.0.1:" + callback + "/callback?code=");
          assertThat(get(location, null).statusCode())
              .isEqualTo(200); // the suite's callback server
        }
      }
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(log.toString()).isZero();
    assertThat(log.toString()).contains("0 failed");
  }

  // ---- codes and PKCE --------------------------------------------------------------------------

  @Test
  void aReusedCodeIsRefusedAndRevokesWhatItIssued() throws Exception {
    String client = register(baseA, null);
    String v = verifier();
    String code = code(baseA, client, v);
    OAuthFlows.Tokens first = tokens(token(baseA, exchangeForm(client, code, v)));
    assertThat(callTool(baseA, first.access()).statusCode()).isEqualTo(200);
    assertThat(error(token(baseA, exchangeForm(client, code, v)), 400)).isEqualTo("invalid_grant");
    assertThat(callTool(baseA, first.access()).statusCode())
        .as("access token of the reused code")
        .isEqualTo(401);
    assertThat(error(token(baseA, refreshForm(client, first.refresh())), 400))
        .isEqualTo("invalid_grant");
    awaitRefused(baseB, first.access()); // the other replica learns it within a second
  }

  @Test
  void aWrongVerifierIsRefusedAndBurnsTheCode() throws Exception {
    String client = register(baseA, null);
    String v = verifier();
    String code = code(baseA, client, v);
    assertThat(error(token(baseA, exchangeForm(client, code, verifier())), 400))
        .isEqualTo("invalid_grant");
    assertThat(error(token(baseA, exchangeForm(client, code, v)), 400)).isEqualTo("invalid_grant");
  }

  @Test
  void missingPkceOrThePlainMethodIsRefusedAtTheRedirectUri() throws Exception {
    String client = register(baseA, null);
    Map<String, String> noChallenge = new HashMap<>(authorizeParams(client, verifier()));
    noChallenge.remove("code_challenge");
    noChallenge.remove("code_challenge_method");
    Map<String, String> q = redirected(authorizeRaw(baseA, noChallenge));
    assertThat(q)
        .containsEntry("error", "invalid_request")
        .containsEntry("state", "st-1")
        .containsEntry("iss", baseA)
        .doesNotContainKey("code");
    String v = verifier();
    Map<String, String> plain = new HashMap<>(authorizeParams(client, v));
    plain.put("code_challenge", v);
    plain.put("code_challenge_method", "plain");
    assertThat(redirected(authorizeRaw(baseA, plain)))
        .containsEntry("error", "invalid_request")
        .doesNotContainKey("code");
    Map<String, String> noMethod = new HashMap<>(authorizeParams(client, v));
    noMethod.remove("code_challenge_method");
    assertThat(redirected(authorizeRaw(baseA, noMethod))).containsEntry("error", "invalid_request");
    Map<String, String> missingVerifier = exchangeForm(client, code(baseA, client, v), v);
    missingVerifier.remove("code_verifier");
    assertThat(error(token(baseA, missingVerifier), 400)).isEqualTo("invalid_request");
  }

  @Test
  void anExpiredCodeIsRefused() throws Exception {
    String client = register(baseA, null);
    String v = verifier();
    String code = code(baseA, client, v);
    try {
      CLOCK.offset = Duration.ofMinutes(5).plusSeconds(1);
      assertThat(error(token(baseA, exchangeForm(client, code, v)), 400))
          .isEqualTo("invalid_grant");
    } finally {
      CLOCK.offset = Duration.ZERO;
    }
    String fresh = code(baseA, client, v);
    CLOCK.offset = Duration.ofMinutes(4);
    try {
      assertThat(token(baseA, exchangeForm(client, fresh, v)).statusCode())
          .as("within 5 minutes")
          .isEqualTo(200);
    } finally {
      CLOCK.offset = Duration.ZERO;
    }
  }

  @Test
  void wrongOrUnregisteredRedirectUrisNeverRedirect() throws Exception {
    String client = register(baseA, null);
    Map<String, String> evil = new HashMap<>(authorizeParams(client, verifier()));
    evil.put("redirect_uri", "https://evil.example.com/cb");
    HttpResponse<String> r = authorizeRaw(baseA, evil);
    assertThat(error(r, 400)).isEqualTo("invalid_request");
    assertThat(r.headers().firstValue("Location")).isEmpty();
    Map<String, String> prefix = new HashMap<>(authorizeParams(client, verifier()));
    prefix.put("redirect_uri", REDIRECT + "/more");
    assertThat(authorizeRaw(baseA, prefix).statusCode()).isEqualTo(400);
    Map<String, String> unknownClient =
        new HashMap<>(authorizeParams("no-such-client", verifier()));
    HttpResponse<String> u = authorizeRaw(baseA, unknownClient);
    assertThat(error(u, 401)).isEqualTo("invalid_client");
    assertThat(u.headers().firstValue("Location")).isEmpty();
    Map<String, String> noRedirect = new HashMap<>(authorizeParams(client, verifier()));
    noRedirect.remove("redirect_uri");
    assertThat(error(authorizeRaw(baseA, noRedirect), 400)).isEqualTo("invalid_request");
    // other errors do go back to the (registered) redirect URI
    Map<String, String> badType = new HashMap<>(authorizeParams(client, verifier()));
    badType.put("response_type", "token");
    assertThat(redirected(authorizeRaw(baseA, badType)))
        .containsEntry("error", "unsupported_response_type");
    Map<String, String> badScope = new HashMap<>(authorizeParams(client, verifier()));
    badScope.put("scope", "admin");
    assertThat(redirected(authorizeRaw(baseA, badScope))).containsEntry("error", "invalid_scope");
    Map<String, String> badResource = new HashMap<>(authorizeParams(client, verifier()));
    badResource.put("resource", "https://other.example.com/mcp");
    assertThat(redirected(authorizeRaw(baseA, badResource)))
        .containsEntry("error", "invalid_target");
    // the token request must name the same redirect URI
    String v = verifier();
    Map<String, String> f = exchangeForm(client, code(baseA, client, v), v);
    f.put("redirect_uri", "http://127.0.0.1:53682/other");
    assertThat(error(token(baseA, f), 400)).isEqualTo("invalid_grant");
  }

  @Test
  void theResourceParameterBecomesTheAudience() throws Exception {
    String client = register(baseA, null);
    String v = verifier();
    Map<String, String> p = new HashMap<>(authorizeParams(client, v));
    p.put("resource", baseA + "/mcp");
    p.put("scope", "mcp:read");
    String code = redirected(authorizeRaw(baseA, p)).get("code");
    Map<String, String> f = exchangeForm(client, code, v);
    f.put("resource", baseA + "/mcp");
    OAuthFlows.Tokens t = tokens(token(baseA, f));
    assertThat(t.body().get("scope").asText()).isEqualTo("mcp:read");
    assertThat(t.body().get("token_type").asText()).isEqualTo("Bearer");
    assertThat(t.body().get("expires_in").asLong()).isEqualTo(3600);
    JsonNode claims =
        Json.MAPPER.readTree(Base64.getUrlDecoder().decode(t.access().split("\\.")[1]));
    assertThat(claims.get("aud").asText()).isEqualTo(baseA + "/mcp");
    assertThat(claims.get("sub").asText()).isEqualTo(client);
    assertThat(claims.get("iss").asText()).isEqualTo(baseA);
    assertThat(callTool(baseA, t.access()).statusCode()).isEqualTo(200);
  }

  /** A report holds every client's envelopes: a signed-in user of their own is never shown one. */
  @Test
  void aSignedInUserIsNotShownReplayReports() throws Exception {
    OAuthFlows.Tokens t = login(baseA, register(baseA, null));
    for (String path : List.of("/ui/evals", "/ui/evals/upper-1")) {
      HttpResponse<String> r = get(baseA + path, t.access());
      assertThat(r.statusCode()).as(path).isEqualTo(403);
      assertThat(r.body()).as(path).contains("every client's envelopes");
    }
  }

  // ---- refresh ----------------------------------------------------------------------------

  @Test
  void refreshRotatesAndAReusedRefreshTokenRevokesTheFamily() throws Exception {
    String client = register(baseA, null);
    OAuthFlows.Tokens t0 = login(baseA, client);
    OAuthFlows.Tokens t1 = tokens(token(baseA, refreshForm(client, t0.refresh())));
    assertThat(t1.refresh()).isNotEqualTo(t0.refresh());
    assertThat(callTool(baseA, t1.access()).statusCode()).isEqualTo(200);
    assertThat(error(token(baseA, refreshForm(client, t0.refresh())), 400))
        .isEqualTo("invalid_grant");
    assertThat(error(token(baseA, refreshForm(client, t1.refresh())), 400))
        .as("family revoked")
        .isEqualTo("invalid_grant");
    assertThat(callTool(baseA, t1.access()).statusCode())
        .as("family's access token")
        .isEqualTo(401);
    // a refresh token of another client is refused and stays usable by its owner
    String other = register(baseA, null);
    OAuthFlows.Tokens mine = login(baseA, client);
    assertThat(error(token(baseA, refreshForm(other, mine.refresh())), 400))
        .isEqualTo("invalid_grant");
    assertThat(token(baseA, refreshForm(client, mine.refresh())).statusCode()).isEqualTo(200);
    assertThat(error(token(baseA, refreshForm(client, "never-issued")), 400))
        .isEqualTo("invalid_grant");
  }

  @Test
  void concurrentRefreshesOfOneTokenNeverBothSucceed() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 5; round++) {
        String client = register(baseA, null);
        OAuthFlows.Tokens t = login(baseA, client);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          String base = i % 2 == 0 ? baseA : baseB; // both replicas race on one database
          Callable<Integer> refresh =
              () -> {
                go.await();
                return token(base, refreshForm(client, t.refresh())).statusCode();
              };
          results.add(pool.submit(refresh));
        }
        go.countDown();
        int ok = 0;
        for (Future<Integer> f : results) {
          int status = f.get(30, TimeUnit.SECONDS);
          assertThat(status).isIn(200, 400);
          ok += status == 200 ? 1 : 0;
        }
        assertThat(ok).as("round " + round).isLessThanOrEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- token endpoint and registration bad inputs -----------------------------------------

  @Test
  void badTokenRequestsGetTheirRfc6749Codes() throws Exception {
    String client = register(baseA, null);
    assertThat(error(token(baseA, Map.of("code", "x")), 400)).isEqualTo("invalid_request");
    assertThat(error(token(baseA, Map.of("grant_type", "password", "username", "u")), 400))
        .isEqualTo("unsupported_grant_type");
    assertThat(error(token(baseA, Map.of("grant_type", "client_credentials")), 400))
        .isEqualTo("unsupported_grant_type");
    String v = verifier();
    assertThat(error(token(baseA, exchangeForm("no-such-client", "c", v)), 401))
        .isEqualTo("invalid_client");
    assertThat(error(token(baseA, exchangeForm(client, "no-such-code", v)), 400))
        .isEqualTo("invalid_grant");
    Map<String, String> missing = exchangeForm(client, "c", v);
    missing.remove("redirect_uri");
    assertThat(error(token(baseA, missing), 400)).isEqualTo("invalid_request");
    HttpResponse<String> json =
        OAuthFlows.HTTP.send(
            post(baseA + "/oauth/token", "{\"grant_type\":\"refresh_token\"}").build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(error(json, 400)).isEqualTo("invalid_request");
    HttpResponse<String> twice =
        OAuthFlows.HTTP.send(
            HttpRequest.newBuilder(URI.create(baseA + "/oauth/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "grant_type=refresh_token&grant_type=authorization_code"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(error(twice, 400)).isEqualTo("invalid_request");
    HttpResponse<String> big =
        OAuthFlows.HTTP.send(
            HttpRequest.newBuilder(URI.create(baseA + "/oauth/token"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "grant_type=refresh_token&x=" + "a".repeat(100_000)))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(big.statusCode()).isEqualTo(413);
    // a client registered without the refresh grant may not refresh
    HttpResponse<String> codeOnly =
        registerRaw(
            baseA,
            "{\"redirect_uris\":[\"" + REDIRECT + "\"],\"grant_types\":[\"authorization_code\"]}",
            null);
    String codeOnlyId = Json.MAPPER.readTree(codeOnly.body()).get("client_id").asText();
    OAuthFlows.Tokens t = login(baseA, codeOnlyId);
    assertThat(t.refresh()).isNull();
    assertThat(error(token(baseA, refreshForm(codeOnlyId, "x")), 400))
        .isEqualTo("unauthorized_client");
  }

  @Test
  void registrationChecksItsTokenAndItsInput() throws Exception {
    String good = "{\"client_name\":\"x\",\"redirect_uris\":[\"" + REDIRECT + "\"]}";
    // B requires the registration token
    assertThat(error(registerRaw(baseB, good, null), 401)).isEqualTo("invalid_token");
    assertThat(error(registerRaw(baseB, good, "wrong"), 401)).isEqualTo("invalid_token");
    assertThat(error(registerRaw(baseB, "{not json", null), 401))
        .as("no token, bad body")
        .isEqualTo("invalid_token");
    HttpResponse<String> ok = registerRaw(baseB, good, REG_TOKEN);
    assertThat(ok.statusCode()).isEqualTo(201);
    JsonNode c = Json.MAPPER.readTree(ok.body());
    assertThat(c.get("client_name").asText()).isEqualTo("x");
    assertThat(c.get("redirect_uris")).extracting(JsonNode::asText).containsExactly(REDIRECT);
    assertThat(c.get("scope").asText()).isEqualTo("mcp:invoke mcp:read");
    // A is open; its input is checked
    assertThat(
            error(
                registerRaw(baseA, "{\"redirect_uris\":[\"http://app.example.com/cb\"]}", null),
                400))
        .isEqualTo("invalid_redirect_uri");
    assertThat(error(registerRaw(baseA, "{\"client_name\":\"no uris\"}", null), 400))
        .isEqualTo("invalid_redirect_uri");
    assertThat(error(registerRaw(baseA, "{\"redirect_uris\":[]}", null), 400))
        .isEqualTo("invalid_redirect_uri");
    assertThat(error(registerRaw(baseA, "{not json", null), 400)).isEqualTo("invalid_request");
    assertThat(error(registerRaw(baseA, "[1,2]", null), 400)).isEqualTo("invalid_request");
    assertThat(
            error(
                registerRaw(
                    baseA, "{\"redirect_uris\":[\"" + REDIRECT + "\"],\"scope\":\"admin\"}", null),
                400))
        .isEqualTo("invalid_client_metadata");
    assertThat(
            error(
                registerRaw(
                    baseA,
                    "{\"redirect_uris\":[\""
                        + REDIRECT
                        + "\"],\"token_endpoint_auth_method\":\"client_secret_basic\"}",
                    null),
                400))
        .isEqualTo("invalid_client_metadata");
    assertThat(
            error(
                registerRaw(
                    baseA,
                    "{\"redirect_uris\":[\"" + REDIRECT + "\"],\"grant_types\":[\"implicit\"]}",
                    null),
                400))
        .isEqualTo("invalid_client_metadata");
    String huge =
        "{\"client_name\":\""
            + "a".repeat(100_000)
            + "\",\"redirect_uris\":[\""
            + REDIRECT
            + "\"]}";
    assertThat(registerRaw(baseA, huge, null).statusCode()).isEqualTo(413);
  }

  /**
   * Issue 33 items 7 and 9: a NUL in a client id or name answered 503 "storage unavailable" and was
   * logged as a store outage; it is the request's fault. And every bad-input class on the two
   * routes that take a body answers a 4xx in our words (counts printed).
   */
  @Test
  void nulCharactersAndBadBodiesAreTheClientsFaultNotTheStores() throws Exception {
    String nulName = "{\"client_name\":\"a\\u0000b\",\"redirect_uris\":[\"" + REDIRECT + "\"]}";
    assertThat(error(registerRaw(baseA, nulName, null), 400)).isEqualTo("invalid_client_metadata");
    assertThat(error(token(baseA, exchangeForm("a\u0000b", "code", verifier())), 400))
        .isEqualTo("invalid_request");
    assertThat(authorizeRaw(baseA, authorizeParams("a\u0000b", verifier())).statusCode())
        .isEqualTo(400);
    HttpClient http = HttpClient.newHttpClient();
    int tried = 0;
    List<String> unclean = new ArrayList<>();
    for (BadInputs.Case c : BadInputs.bodies("%s")) {
      for (String route : List.of("/oauth/register", "/oauth/token")) {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(baseA + route))
                    .header("Content-Type", c.contentType())
                    .POST(HttpRequest.BodyPublishers.ofByteArray(c.body()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        tried++;
        if (r.statusCode() < 400
            || r.statusCode() >= 500
            || ClientText.leak(r.body()).isPresent()) {
          unclean.add(route + " " + c + ": " + r.statusCode() + " " + r.body());
        }
      }
    }
    System.out.printf(
        "oauth body routes: %d cases tried, %d clean%n", tried, tried - unclean.size());
    assertThat(unclean).isEmpty();
  }

  // ---- persistence and replicas ----------------------------------------------------------

  @Test
  void twoGatewaysOnOneDatabaseAcceptEachOthersTokens() throws Exception {
    String client = register(baseA, null);
    OAuthFlows.Tokens fromA = login(baseA, client);
    assertThat(callTool(baseB, fromA.access()).statusCode()).as("A's token at B").isEqualTo(200);
    OAuthFlows.Tokens fromB = login(baseB, client); // B knows the client A registered
    assertThat(callTool(baseA, fromB.access()).statusCode()).as("B's token at A").isEqualTo(200);
    OAuthFlows.Tokens rotatedAtB = tokens(token(baseB, refreshForm(client, fromA.refresh())));
    assertThat(callTool(baseA, rotatedAtB.access()).statusCode()).isEqualTo(200);
    assertThat(error(token(baseA, refreshForm(client, fromA.refresh())), 400))
        .as("rotated out at B")
        .isEqualTo("invalid_grant");
  }

  @Test
  void aRestartLosesNoClientOrToken() throws Exception {
    String client = register(baseB, REG_TOKEN);
    OAuthFlows.Tokens t = login(baseB, client);
    b.close();
    b = startReplicaB();
    assertThat(callTool(baseB, t.access()).statusCode())
        .as("access token after restart")
        .isEqualTo(200);
    OAuthFlows.Tokens rotated = tokens(token(baseB, refreshForm(client, t.refresh())));
    assertThat(callTool(baseB, rotated.access()).statusCode()).isEqualTo(200);
    assertThat(login(baseB, client).access()).as("the client is still registered").isNotBlank();
  }

  // ---- owner isolation ------------------------------------------------------------------------

  @Test
  void aClientNeverSeesAnotherClientsTask() throws Exception {
    OAuthFlows.Tokens x = login(baseA, register(baseA, null));
    OAuthFlows.Tokens y = login(baseA, register(baseA, null));
    String task = taskId(callTool(baseA, x.access()));
    awaitVisible(baseA, task, x.access());
    HttpResponse<String> foreign = get(baseA + "/tasks/" + task, y.access());
    HttpResponse<String> unknown = get(baseA + "/tasks/no-such-task", y.access());
    assertThat(foreign.statusCode()).isEqualTo(404);
    assertThat(foreign.body()).isEqualTo(unknown.body().replace("no-such-task", task));
    assertThat(get(baseA + "/stream/" + task, y.access()).statusCode()).isEqualTo(404);

    // MCP: a task started over MCP belongs to the client, and its session is not another's
    String session = mcpInitialize(baseA, x.access());
    HttpResponse<String> call =
        mcp(
            baseA,
            x.access(),
            session,
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
    JsonNode result = Json.MAPPER.readTree(dataOf(call.body())).get("result");
    String mcpTask = result.at("/structuredContent/task_id").asText();
    awaitVisible(baseA, mcpTask, x.access());
    assertThat(get(baseA + "/tasks/" + mcpTask, y.access()).statusCode()).isEqualTo(404);
    assertThat(
            mcp(
                    baseA,
                    y.access(),
                    session,
                    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}")
                .statusCode())
        .as("another client's session")
        .isEqualTo(404);
  }

  // ---- client ID metadata documents ----------------------------------------------------------

  @Test
  void clientIdMetadataDocumentsAreFetchedBehindAnSsrfGuard() throws Exception {
    HttpServer docs = HttpServer.create(new InetSocketAddress("127.0.0.1", docsPort), 0);
    String base = "http://127.0.0.1:" + docsPort + "/allowed";
    String id = base + "/client.json";
    String unlisted = "http://127.0.0.1:" + docsPort + "/unlisted/client.json";
    Map<String, String> bodies =
        Map.of(
            "/allowed/client.json",
                "{\"client_id\":\""
                    + id
                    + "\",\"client_name\":\"cimd\",\"redirect_uris\":[\""
                    + REDIRECT
                    + "\"]}",
            "/unlisted/client.json",
                "{\"client_id\":\""
                    + unlisted
                    + "\",\"client_name\":\"stranger\",\"redirect_uris\":[\""
                    + REDIRECT
                    + "\"]}",
            "/allowed/other.json",
                "{\"client_id\":\"https://someone.else/client.json\",\"redirect_uris\":[\""
                    + REDIRECT
                    + "\"]}",
            "/allowed/big.json",
                "{\"client_id\":\""
                    + base
                    + "/big.json\",\"redirect_uris\":[\""
                    + REDIRECT
                    + "\"],\"x\":\""
                    + "a".repeat(20_000)
                    + "\"}");
    Set<String> asked = ConcurrentHashMap.newKeySet();
    docs.createContext(
        "/",
        ex -> {
          asked.add(ex.getRequestURI().getPath());
          byte[] body =
              bodies
                  .getOrDefault(ex.getRequestURI().getPath(), "{}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.getResponseHeaders().add("Content-Type", "application/json");
          ex.sendResponseHeaders(200, body.length);
          ex.getResponseBody().write(body);
          ex.close();
        });
    docs.start();
    try {
      // A: no test switch, a loopback document is refused and nothing redirects
      HttpResponse<String> refused = authorizeRaw(baseA, authorizeParams(id, verifier()));
      assertThat(error(refused, 401)).isEqualTo("invalid_client");
      assertThat(refused.headers().firstValue("Location")).isEmpty();
      // B requires a registration token: a document outside its allow-list is refused before
      // it is fetched, so a client that never registered gets no code (issue 33 item 4)
      HttpResponse<String> stranger = authorizeRaw(baseB, authorizeParams(unlisted, verifier()));
      assertThat(error(stranger, 401)).isEqualTo("invalid_client");
      assertThat(stranger.headers().firstValue("Location")).isEmpty();
      assertThat(asked).doesNotContain("/unlisted/client.json");
      // B: the documented test-only switch allows loopback, the allow-list this document
      String v = verifier();
      String code = code(baseB, id, v);
      OAuthFlows.Tokens t = tokens(token(baseB, exchangeForm(id, code, v)));
      String task = taskId(callTool(baseB, t.access()));
      awaitVisible(baseB, task, t.access());
      assertThat(error(authorizeRaw(baseB, authorizeParams(base + "/other.json", verifier())), 401))
          .isEqualTo("invalid_client");
      assertThat(error(authorizeRaw(baseB, authorizeParams(base + "/big.json", verifier())), 401))
          .isEqualTo("invalid_client");
      Map<String, String> wrongRedirect = new HashMap<>(authorizeParams(id, verifier()));
      wrongRedirect.put("redirect_uri", "http://127.0.0.1:1/elsewhere");
      assertThat(authorizeRaw(baseB, wrongRedirect).statusCode()).isEqualTo(400);
    } finally {
      docs.stop(0);
    }
  }

  // ---- helpers ---------------------------------------------------------------------------------

  /** An access token for an existing client id (the SDK's own token is gone with its process). */
  private static String loginAs(String clientId) throws Exception {
    return login(baseA, clientId).access();
  }

  private static void awaitVisible(String base, String task, String access) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    HttpResponse<String> r;
    do { // the created event is folded into the view asynchronously
      r = get(base + "/tasks/" + task, access);
      if (r.statusCode() == 200) {
        return;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private static void awaitRefused(String base, String access) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    int status;
    do {
      status = callTool(base, access).statusCode();
      if (status == 401) {
        return;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    assertThat(status).isEqualTo(401);
  }

  private static String mcpInitialize(String base, String access) throws Exception {
    HttpResponse<String> init =
        mcp(
            base,
            access,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}");
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertThat(
            mcp(
                    base,
                    access,
                    session,
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
                .statusCode())
        .isEqualTo(202);
    return session;
  }

  private static HttpResponse<String> mcp(String base, String access, String session, String body)
      throws Exception {
    HttpRequest.Builder r =
        post(base + "/mcp", body)
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", "Bearer " + access);
    if (session != null) {
      r.header("Mcp-Session-Id", session);
    }
    return OAuthFlows.HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The JSON of a Streamable HTTP answer, sent as plain JSON or as one SSE message. */
  private static String dataOf(String body) {
    // a waiting request's stream starts with a priming event without data: its answer is last
    return body.lines()
        .filter(l -> l.startsWith("data:"))
        .map(l -> l.substring(5).trim())
        .filter(l -> !l.isEmpty())
        .reduce((first, second) -> second)
        .orElse(body);
  }

  private static HttpRequest.Builder post(String url, String body) {
    return HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  /** A well-formed HS256 token of the right issuer and audience, signed with another key. */
  private static String forgedToken() {
    return new TokenService(
            "another-key-of-at-least-thirty-two-bytes".getBytes(StandardCharsets.UTF_8),
            baseA,
            baseA,
            Duration.ofHours(1),
            Clock.systemUTC())
        .issue("c", "mcp:read", baseA, "f");
  }

  private static JsonNode find(List<JsonNode> events, String name) {
    return events.stream()
        .filter(e -> e.get("event").asText().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + name + " in " + events));
  }

  /** The system clock moved by {@link #offset}: codes can expire without waiting five minutes. */
  static final class OffsetClock extends Clock {
    volatile Duration offset = Duration.ZERO;

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(offset);
    }
  }
}

package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real gateway process (the launcher's classpath, so Logback with LogSetup) with {@code
 * SVC_LOG_FORMAT=json} and secrets configured: its log is one JSON object per line, and none of the
 * secrets (API key, OAuth signing secret, database password) appears in it, neither at start nor
 * while clients send right and wrong credentials, nor at SIGTERM.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class LogSecretsIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path dir;

  @Test
  void apiKeyAndDatabasePasswordNeverReachTheJsonLog() throws Exception {
    String apiKey = "key-" + UUID.randomUUID();
    String dbPassword = "pw-" + UUID.randomUUID();
    Map<String, String> env = baseEnv(dbPassword, "testing");
    env.put("SVC_MCP_API_KEY", apiKey);
    Path log = dir.resolve("gateway-key.log");
    try (ChildJvm gateway = ChildJvm.start("io.taskmesh.gateway.Main", env, log)) {
      String base = baseUrl(gateway);
      assertThat(call(base, "/tools/call", "Bearer wrong-" + apiKey).statusCode()).isEqualTo(401);
      assertThat(call(base, "/tools/call", "Bearer " + apiKey).statusCode()).isEqualTo(404);
      assertThat(get(base + "/ready").statusCode()).isEqualTo(200);
      stop(gateway);
    }
    assertJsonLinesWithout(log, apiKey, dbPassword);
  }

  @Test
  void oauthSigningSecretAndDatabasePasswordNeverReachTheJsonLog() throws Exception {
    String signing = "oauth-secret-" + UUID.randomUUID() + UUID.randomUUID();
    String dbPassword = "pw-" + UUID.randomUUID();
    Map<String, String> env = baseEnv(dbPassword, "api");
    env.put("SVC_MCP_OAUTH_ENABLED", "true");
    env.put("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:8000");
    env.put("SVC_MCP_OAUTH_SECRET", signing);
    Path log = dir.resolve("gateway-oauth.log");
    try (ChildJvm gateway = ChildJvm.start("io.taskmesh.gateway.Main", env, log)) {
      String base = baseUrl(gateway);
      assertThat(call(base, "/tools/call", "Bearer " + signing).statusCode()).isEqualTo(401);
      assertThat(get(base + "/ready").statusCode()).isEqualTo(200);
      stop(gateway);
    }
    assertJsonLinesWithout(log, signing, dbPassword);
  }

  private Map<String, String> baseEnv(String dbPassword, String mode) {
    Map<String, String> env = new HashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", LocalKafka.shared().bootstrapServers());
    env.put("SVC_GATEWAY_MODE", mode);
    env.put("SVC_PORT", "0");
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_STREAMS_APPLICATION_ID", "logs-" + UUID.randomUUID().toString().substring(0, 8));
    env.put("SVC_STATE_DIR", dir.resolve("state-" + mode).toString());
    env.put("SVC_LOG_FORMAT", "json");
    // the embedded Postgres trusts local connections: any password is accepted, and this one must
    // stay out of the log
    env.put("SVC_DATABASE_URL", LocalPostgres.shared().jdbcUrl() + "&password=" + dbPassword);
    return env;
  }

  private static String baseUrl(ChildJvm gateway) {
    String line = gateway.awaitLine(l -> l.startsWith("gateway ("), 90, TimeUnit.SECONDS);
    return line.substring(line.indexOf("http://")).trim();
  }

  /** SIGTERM, as an orchestrator stops it; the shutdown path logs too. */
  private static void stop(ChildJvm gateway) {
    ProcessHandle.of(gateway.pid()).ifPresent(ProcessHandle::destroy);
    Await.until(() -> !gateway.isAlive(), Duration.ofSeconds(30), "gateway stops on SIGTERM");
  }

  private static void assertJsonLinesWithout(Path log, String... secrets) throws Exception {
    List<String> lines = Files.readAllLines(log);
    List<JsonNode> events =
        lines.stream()
            .filter(l -> !l.isBlank() && !l.startsWith("gateway ("))
            .map(LogSecretsIT::json)
            .toList();
    assertThat(events).as("log events").isNotEmpty();
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.has("level")).as(e.toString()).isTrue();
              assertThat(e.has("loggerName")).as(e.toString()).isTrue();
            });
    String all = String.join("\n", lines);
    for (String secret : secrets) {
      assertThat(all).as("the log").doesNotContain(secret);
    }
  }

  private static JsonNode json(String line) {
    try {
      JsonNode n = Json.MAPPER.readTree(line);
      assertThat(n.isObject()).as(line).isTrue();
      return n;
    } catch (Exception e) {
      throw new AssertionError("not a JSON log line: " + line, e);
    }
  }

  private static HttpResponse<String> call(String base, String path, String authorization)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .header("Authorization", authorization)
            .POST(
                HttpRequest.BodyPublishers.ofString("{\"name\":\"no-such-flow\",\"arguments\":{}}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

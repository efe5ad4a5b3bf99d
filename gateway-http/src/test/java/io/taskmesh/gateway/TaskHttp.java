package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * Test helpers for the task side of the gateway: env of a replica, HTTP calls, waiting on a read
 * model.
 */
public final class TaskHttp {
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private TaskHttp() {}

  /**
   * The env of one replica with its own topics (prefix), application id, state dir and a fixed free
   * port.
   */
  static Map<String, String> env(String prefix, Path stateDir, Path flows, int port) {
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", LocalKafka.shared().bootstrapServers());
    env.put("SVC_PORT", Integer.toString(port));
    env.put("SVC_HOST", "127.0.0.1");
    if (flows != null) {
      env.put("SVC_CONFIG_PATH", flows.toString());
    }
    env.put("SVC_STATE_DIR", stateDir.toString());
    env.put("SVC_STREAMS_APPLICATION_ID", prefix + "-app");
    env.put("SVC_TASK_EVENTS_TOPIC", prefix + ".task-events");
    env.put("SVC_TASK_UPDATES_TOPIC", prefix + ".task-updates");
    env.put("SVC_NAMESPACE", prefix);
    return env;
  }

  /**
   * The env of a test's single gateway on the shared broker: {@code mode}, a port of its choosing,
   * the flows file, its state under {@code dir}, and an application id of its own ({@code
   * appPrefix}, a dash and a random UUID), so {@link #start} gives it task topics of its own. The
   * map is mutable: a test adds what else it needs.
   */
  static Map<String, String> singleEnv(String mode, Path dir, Path flows, String appPrefix) {
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", mode);
    env.put("KAFKA_BOOTSTRAP_SERVERS", LocalKafka.shared().bootstrapServers());
    env.put("SVC_PORT", "0");
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_STATE_DIR", dir.resolve("state").toString());
    env.put("SVC_STREAMS_APPLICATION_ID", appPrefix + "-" + UUID.randomUUID());
    return env;
  }

  /**
   * The env of one replica of a FLY deployment: {@link #env} in {@code mode} with the Postgres that
   * carries FLY between replicas ({@code SVC_DATABASE_URL}).
   */
  static Map<String, String> flyReplicaEnv(
      String prefix, Path stateDir, Path flows, String mode, String databaseUrl) {
    Map<String, String> env = env(prefix, stateDir, flows, freePort());
    env.put("SVC_GATEWAY_MODE", mode);
    env.put("SVC_DATABASE_URL", databaseUrl);
    return env;
  }

  /**
   * Starts a gateway on the task topics of {@code env}; a test that names none gets topics of its
   * own, after its application id (the defaults would fold every other test class's events).
   */
  public static Gateway start(Map<String, String> env) {
    Map<String, String> own = new HashMap<>(env);
    String app = env.get("SVC_STREAMS_APPLICATION_ID");
    if (app != null) {
      own.putIfAbsent("SVC_TASK_EVENTS_TOPIC", app + ".task-events");
      own.putIfAbsent("SVC_TASK_UPDATES_TOPIC", app + ".task-updates");
    }
    return Gateway.start(GatewayConfig.fromEnv(own), TaskSettings.fromEnv(own));
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String url, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A Streamable HTTP POST to {@code base}/mcp, in MCP session {@code session} unless null. */
  static HttpRequest.Builder mcpPost(String base, String session, String body) {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(base + "/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      req.header("Mcp-Session-Id", session);
    }
    return req;
  }

  static JsonNode json(HttpResponse<String> r) throws IOException {
    return Json.MAPPER.readTree(r.body());
  }

  /**
   * Polls {@code GET url} until the JSON answer satisfies {@code ok}; a read model has no event to
   * wait on.
   */
  static JsonNode await(String url, Predicate<JsonNode> ok, Duration timeout) {
    return Await.until(
        () -> {
          HttpResponse<String> r = get(url);
          return r.statusCode() == 200 ? json(r) : null;
        },
        node -> node != null && ok.test(node),
        timeout,
        "no matching answer from " + url);
  }

  /** Starts a task of {@code flow} with {@code /tools/call}; returns its id. */
  static String callTool(String base, String flow) throws Exception {
    HttpResponse<String> r =
        post(base + "/tools/call", "{\"name\":\"" + flow + "\",\"arguments\":{}}");
    if (r.statusCode() != 200) {
      throw new AssertionError("tools/call " + flow + ": " + r.statusCode() + " " + r.body());
    }
    return Json.MAPPER
        .readTree(json(r).get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  static String progress(String prev, String curr, String next, String state) {
    return "{\"prev\":"
        + list(prev)
        + ",\"curr\":\""
        + curr
        + "\",\"next\":"
        + list(next)
        + ",\"status\":\""
        + state
        + "\"}";
  }

  private static String list(String csv) {
    return csv.isEmpty() ? "[]" : "[\"" + String.join("\",\"", csv.split(",")) + "\"]";
  }
}

package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.gateway.launch.TaskLauncher;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A {@link GatewayApp} on a free loopback port over in-memory ports: {@link InMemoryTaskView} for
 * the task view, {@link RecordingEnvelopeQueue} behind the real {@link TaskLauncher}, the
 * in-process {@link FlyBus}, and a flow config file written for the test. No Kafka, no Postgres;
 * every request goes through real HTTP, so route moves inside the gateway do not matter here.
 */
final class EdgeGateway implements AutoCloseable {
  /**
   * Flows every edge test can call: a tool and A2A skill, an A2A-only skill, and a tool with a
   * typed input schema.
   */
  static final String FLOWS =
      """
      flows:
        - {name: echo, entrypoint: echo, route_next: [upper], mcp: {}, a2a: {}}
        - {name: skill-only, entrypoint: skill, a2a: {}}
        - name: typed
          entrypoint: typed
          mcp:
            inputSchema: {type: object, properties: {n: {type: integer}}, required: [n]}
      """;

  static final String NAMESPACE = "edge";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  final InMemoryTaskView tasks = new InMemoryTaskView();
  final RecordingEnvelopeQueue queue = new RecordingEnvelopeQueue();
  final FlyBus fly = new FlyBus();
  final FlowRegistry flows;
  private final Path dir;
  private final GatewayApp app;
  private final String base;

  private EdgeGateway(GatewayMode mode, Map<String, String> extraEnv, String flowConfig) {
    try {
      dir = Files.createTempDirectory("edge-gateway");
      Files.writeString(dir.resolve("flows.yaml"), flowConfig);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, String> env =
        new HashMap<>(
            Map.of(
                "SVC_GATEWAY_MODE",
                mode.name().toLowerCase(Locale.ROOT),
                "KAFKA_BOOTSTRAP_SERVERS",
                "127.0.0.1:9", // never dialled: the ports are in memory
                "SVC_HOST",
                "127.0.0.1",
                "SVC_PORT",
                "0",
                "SVC_NAMESPACE",
                NAMESPACE,
                "SVC_CONFIG_PATH",
                dir.resolve("flows.yaml").toString()));
    env.putAll(extraEnv);
    GatewayConfig config = GatewayConfig.fromEnv(env);
    flows = FlowRegistry.load(config.configPath());
    TaskLauncher launcher =
        new TaskLauncher(tasks, queue, config.namespace(), config.meshUrl(), null);
    app = new GatewayApp(config, flows, tasks, tasks, tasks, launcher, fly);
    app.javalin().start(config.host(), config.port());
    base = "http://127.0.0.1:" + app.javalin().port();
  }

  static EdgeGateway start(GatewayMode mode) {
    return new EdgeGateway(mode, Map.of(), FLOWS);
  }

  static EdgeGateway start(GatewayMode mode, Map<String, String> env) {
    return new EdgeGateway(mode, env, FLOWS);
  }

  /** A gateway over the flow config {@code flowConfig} instead of {@link #FLOWS}. */
  static EdgeGateway start(GatewayMode mode, Map<String, String> env, String flowConfig) {
    return new EdgeGateway(mode, env, flowConfig);
  }

  /** Creates a task as the launcher would, owned by {@code owner} (null: no owner). */
  String seedTask(String id, String owner) {
    tasks.append(
        TaskEvent.created(
            id,
            new TaskEvent.Created(
                "echo",
                Route.start("echo", List.of("upper")),
                Json.MAPPER.createObjectNode(),
                null,
                id,
                null,
                owner)));
    return id;
  }

  /** Every event and envelope recorded so far: compare before and after a refused request. */
  String recorded() {
    return tasks.events().size()
        + " events, "
        + queue.dispatched().size()
        + " dispatched, "
        + queue.resumed().size()
        + " resumed";
  }

  String url(String path) {
    return base + path;
  }

  HttpRequest.Builder request(String method, String path, String body) {
    HttpRequest.BodyPublisher publisher =
        body == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body);
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .method(method, publisher);
    return body == null ? b : b.header("Content-Type", "application/json");
  }

  HttpResponse<String> send(HttpRequest.Builder request) {
    try {
      return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  HttpResponse<String> send(String method, String path, String body, String... headers) {
    HttpRequest.Builder b = request(method, path, body);
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b);
  }

  HttpResponse<String> get(String path, String... headers) {
    return send("GET", path, null, headers);
  }

  HttpResponse<String> post(String path, String body, String... headers) {
    return send("POST", path, body, headers);
  }

  /** The status of a response whose body may be an endless stream; the body is closed unread. */
  int status(String method, String path, String body, String... headers) {
    HttpRequest.Builder b = request(method, path, body);
    if (headers.length > 0) {
      b.headers(headers);
    }
    try {
      HttpResponse<InputStream> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
      r.body().close();
      return r.statusCode();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  static JsonNode json(HttpResponse<String> r) {
    try {
      return Json.MAPPER.readTree(r.body());
    } catch (IOException e) {
      throw new AssertionError("not JSON (" + r.statusCode() + "): " + r.body(), e);
    }
  }

  /** The task id in a {@code /tools/call} answer (its CallToolResult text). */
  static String taskIdOfToolCall(HttpResponse<String> r) {
    try {
      return Json.MAPPER
          .readTree(json(r).get("content").get(0).get("text").asText())
          .get("task_id")
          .asText();
    } catch (IOException e) {
      throw new AssertionError("not a CallToolResult: " + r.body(), e);
    }
  }

  @Override
  public void close() throws IOException {
    app.close();
    fly.close();
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }
}

package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.ExitHook;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * On-demand benchmark (not a test): how long one client waits for a tool call's result when it
 * follows the call as an MCP task, against the same flow followed through {@code POST /tools/call}
 * and its SSE stream, same gateway, same run. A real actor does the work: the Python runtime
 * running {@code runtime/examples/echo.py}, a real {@link Sidecar} for {@code echo} and a real
 * {@link SinkActor}, all on the bench's local broker.
 *
 * <ul>
 *   <li>A (MCP, 2025-11-25 session): {@code tools/call} with {@code params.task}, then {@code
 *       tasks/result} for the task id; sending the call -> the {@code tasks/result} answer.
 *   <li>B (baseline): {@code POST /tools/call}, then {@code GET} on the answer's {@code
 *       stream_url}; sending the call -> the terminal {@code update} event.
 * </ul>
 *
 * One client, one task at a time, samples taken A-B-B-A so a drift of the shared machine's load
 * falls on both. Each answer is checked to carry the text the call sent. Run from the repository
 * root (class path: benchmarks/README.md): {@code java -cp "$CP"
 * io.taskmesh.gateway.McpTaskLatencyBench [N=200] [WARMUP=20]}.
 */
public final class McpTaskLatencyBench {
  private static final HttpClient HTTP =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  /** JSON-RPC request ids of the one MCP session (one client, one request at a time). */
  private static long nextId = 1;

  /** A JSON message and when it was read ({@link System#nanoTime}). */
  private record Answer(JsonNode json, long at) {}

  /** One sample: the nanoseconds from sending the call to holding its result. */
  @FunctionalInterface
  private interface Flow {
    long run(String marker) throws Exception;
  }

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Path root = Path.of(System.getProperty("taskmesh.root", ".")).toAbsolutePath().normalize();
    String loadAtStart = loadAverage();
    String bootstrap = LocalKafka.shared().bootstrapServers();
    Path dir = Files.createTempDirectory("mcp-task-bench");
    Path flows = dir.resolve("flows.yaml");
    // the timeout ends a task that no actor finishes, so a broken run fails instead of hanging
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, timeout: 60, mcp: {}}\n");
    String namespace = "mcptask" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env = TaskHttp.singleEnv("testing", dir, flows, "mcp-task-bench");
    env.put("SVC_NAMESPACE", namespace);
    ExitHook logOnly = status -> System.err.println("an actor asked to exit with " + status);
    try (Gateway gateway = TaskHttp.start(env);
        GatewayReporter reporter = new GatewayReporter(url(gateway));
        RuntimeProcess runtime =
            RuntimeProcess.startReady(
                root.resolve("runtime"),
                root.resolve("runtime/examples"),
                "echo.handle",
                dir.resolve("echo"),
                Map.of(),
                Duration.ofSeconds(60));
        RuntimeClient client = new RuntimeClient(runtime.socketPath());
        Sidecar echo =
            new Sidecar(
                SidecarConfig.of(bootstrap, namespace, "echo", runtime.socketDir(), url(gateway)),
                client,
                reporter,
                logOnly,
                Duration.ofSeconds(60));
        SinkActor sink =
            new SinkActor(
                SidecarConfig.of(bootstrap, namespace, Topics.SINK, dir, url(gateway)),
                reporter,
                logOnly)) {
      echo.start();
      sink.start();
      String base = url(gateway);
      String session = mcpSession(base);
      Flow mcp = marker -> mcpTaskToResult(base, session, marker);
      Flow rest = marker -> toolsCallToSse(base, marker);
      // the first tasks also wait for the actors' consumer groups to settle
      for (int i = 0; i < warmup; i++) {
        mcp.run("warm-a" + i);
        rest.run("warm-b" + i);
      }
      long[] a = new long[n];
      long[] b = new long[n];
      for (int i = 0; i < n; i++) {
        if (i % 2 == 0) {
          a[i] = mcp.run("a" + i);
          b[i] = rest.run("b" + i);
        } else {
          b[i] = rest.run("b" + i);
          a[i] = mcp.run("a" + i);
        }
      }
      Arrays.sort(a);
      Arrays.sort(b);
      System.out.printf(
          "%n%d sequential tasks each way after %d warm-up, one client, echo actor (Python"
              + " runtime + sidecar + x-sink)%n",
          n, warmup);
      print("A  MCP tools/call (task) -> tasks/result", a);
      print("B  POST /tools/call -> SSE terminal event (baseline)", b);
      System.out.printf("ratio of the p50s A/B: %.2f%n", pct(a, 50) / pct(b, 50));
      System.out.printf(
          "load average (1/5/15 min) at start: %s; at end: %s%n", loadAtStart, loadAverage());
    }
    LocalKafka.shared().close();
    System.exit(0); // the HTTP client's threads would keep the JVM alive
  }

  private static String url(Gateway gateway) {
    return "http://127.0.0.1:" + gateway.port();
  }

  /** A: the task-augmented call, then {@code tasks/result}, which answers once it is terminal. */
  private static long mcpTaskToResult(String base, String session, String marker) throws Exception {
    long start = System.nanoTime();
    JsonNode created =
        rpc(
                base,
                session,
                "tools/call",
                "{\"name\":\"echo\",\"arguments\":{\"text\":\"" + marker + "\"},\"task\":{}}")
            .json();
    String id = created.at("/result/task/taskId").asText();
    if (id.isEmpty()) {
      throw new IllegalStateException("no CreateTaskResult: " + created);
    }
    Answer answer = rpc(base, session, "tasks/result", "{\"taskId\":\"" + id + "\"}");
    JsonNode result = answer.json();
    long took = answer.at() - start;
    if (result.at("/result/isError").asBoolean(true)
        || !marker.equals(result.at("/result/structuredContent/result/text").asText())) {
      throw new IllegalStateException("tasks/result for " + marker + ": " + result);
    }
    return took;
  }

  /** B: the REST call, then its stream until the final update. */
  private static long toolsCallToSse(String base, String marker) throws Exception {
    long start = System.nanoTime();
    HttpResponse<String> call =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"echo\",\"arguments\":{\"text\":\"" + marker + "\"}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (call.statusCode() != 200) {
      throw new IllegalStateException("/tools/call: " + call.statusCode() + " " + call.body());
    }
    String streamUrl =
        Json.MAPPER.readTree(call.body()).at("/structuredContent/stream_url").asText();
    HttpResponse<InputStream> stream =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + streamUrl))
                .header("Accept", "text/event-stream")
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofInputStream());
    Answer terminal = firstData(stream, u -> isFinal(u.path("status").asText()));
    JsonNode last = terminal.json();
    long took = terminal.at() - start;
    if (!"succeeded".equals(last.path("status").asText())
        || !marker.equals(last.at("/result/text").asText())) {
      throw new IllegalStateException("stream of " + marker + " ended with " + last);
    }
    return took;
  }

  private static boolean isFinal(String status) {
    return status.equals("succeeded") || status.equals("failed") || status.equals("canceled");
  }

  /** An initialized Streamable HTTP session (2025-11-25). */
  private static String mcpSession(String base) throws Exception {
    HttpResponse<String> init =
        post(
            base,
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}",
            HttpResponse.BodyHandlers.ofString());
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(
        base,
        session,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        HttpResponse.BodyHandlers.discarding());
    return session;
  }

  /** One JSON-RPC request; its answer comes as JSON or, for one that waits, on an SSE stream. */
  private static Answer rpc(String base, String session, String method, String params)
      throws Exception {
    long id = nextId++;
    HttpResponse<InputStream> r =
        post(
            base,
            session,
            "{\"jsonrpc\":\"2.0\",\"id\":"
                + id
                + ",\"method\":\""
                + method
                + "\",\"params\":"
                + params
                + "}",
            HttpResponse.BodyHandlers.ofInputStream());
    if (r.statusCode() != 200) {
      try (InputStream body = r.body()) {
        throw new IllegalStateException(
            method
                + ": "
                + r.statusCode()
                + " "
                + new String(body.readAllBytes(), StandardCharsets.UTF_8));
      }
    }
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      return firstData(r, m -> m.path("id").asLong(-1) == id);
    }
    try (InputStream body = r.body()) {
      JsonNode json = Json.MAPPER.readTree(body);
      return new Answer(json, System.nanoTime());
    }
  }

  private static <T> HttpResponse<T> post(
      String base, String session, String body, HttpResponse.BodyHandler<T> handler)
      throws Exception {
    return HTTP.send(TaskHttp.mcpPost(base, session, body).build(), handler);
  }

  /**
   * The first {@code data:} JSON of an SSE body that {@code match} accepts, with when it was read.
   * The rest of the body is read after that (off the sample's clock), so the connection goes back
   * to the client's pool: both streams end right after their last event.
   */
  private static Answer firstData(HttpResponse<InputStream> r, Predicate<JsonNode> match)
      throws IOException {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("data:") && line.length() > 5) {
          JsonNode data = Json.MAPPER.readTree(line.substring(5).trim());
          if (match.test(data)) {
            long at = System.nanoTime();
            while (in.readLine() != null) {
              // up to the end the server sends right after the matched event
            }
            return new Answer(data, at);
          }
        }
      }
    }
    throw new IllegalStateException(r.uri() + ": the stream ended without the awaited event");
  }

  private static void print(String what, long[] sorted) {
    System.out.printf(
        "%-55s p50 %7.1f ms  p90 %7.1f ms  p99 %7.1f ms  (%d samples)%n",
        what, pct(sorted, 50), pct(sorted, 90), pct(sorted, 99), sorted.length);
  }

  private static double pct(long[] sorted, int p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return f[0] + " / " + f[1] + " / " + f[2];
    } catch (IOException e) {
      return "unknown";
    }
  }
}

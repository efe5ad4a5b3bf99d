package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On-demand benchmark (not a test): tools/call vs a trivial route on the same server (FLY across
 * replicas: {@link FlyBench}). Each 64-client route also prints its CPU time per request by part
 * ({@link BenchCpu}), the figure that survives a machine shared with other work. Run (class path:
 * benchmarks/README.md): {@code java -cp "$CP" io.taskmesh.gateway.GatewayBench [SECONDS=5]}.
 */
public final class GatewayBench {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Path dir = Files.createTempDirectory("gateway-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String pg = LocalPostgres.shared().jdbcUrl();
    String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    // the replicas of FlyReplicasIT: A (api) takes tool calls and SSE clients, B (mesh) takes FLY
    // posts
    try (Gateway a =
            TaskHttp.start(
                TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-a"), flows, "api", pg));
        Gateway b =
            TaskHttp.start(
                TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-b"), flows, "mesh", pg))) {
      String baseA = "http://127.0.0.1:" + a.port();
      System.out.printf("replicas: A (api) on %d, B (mesh) on %d%n", a.port(), b.port());
      String session = mcpSession(baseA);
      Call health = new Call("GET /health", "GET", "/health", null, new String[0]);
      Call tools =
          new Call(
              "POST /tools/call",
              "POST",
              "/tools/call",
              "{\"name\":\"echo\",\"arguments\":{\"x\":1}}",
              new String[0]);
      Call mcp =
          new Call(
              "MCP tools/call",
              "POST",
              "/mcp",
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
                  // task-augmented: answers once the task started (a plain call waits for it)
                  + "{\"task\":{},\"name\":\"echo\",\"arguments\":{\"x\":1}}}",
              new String[] {"Accept", MCP_ACCEPT, "Mcp-Session-Id", session});
      // long enough at full concurrency for C2 to compile each route's path (1 s rounds at 8
      // clients left the JIT compiling through the measured runs: a third of a call's CPU)
      for (int warm = 0; warm < 2; warm++) {
        for (Call c : List.of(health, tools, mcp)) {
          rate(baseA, c, 64, 3);
        }
      }
      System.out.println("(warm-up done)"); // a profiler can start here: the measured runs follow
      for (int clients : new int[] {64, 1}) {
        Rate trivial = rate(baseA, health, clients, seconds);
        System.out.printf(
            "%d client(s): %-16s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (baseline)%n",
            clients, health.name(), trivial.perSecond(), trivial.p50(), trivial.p99());
        if (clients > 1) { // one client's figures are mostly the idle polling of the fold and feed
          printCpu(trivial, trivial);
        }
        for (Call c : List.of(tools, mcp)) {
          Rate r = rate(baseA, c, clients, seconds);
          System.out.printf(
              "%d client(s): %-16s %7.0f req/s  p50 %6.2f ms  p99 %6.2f ms  = %.2f x GET /health%n",
              clients,
              c.name(),
              r.perSecond(),
              r.p50(),
              r.p99(),
              r.perSecond() / trivial.perSecond());
          if (clients > 1) {
            printCpu(r, trivial);
          }
        }
      }
    }
    // FLY across the replicas has its own bench: FlyBench
    LocalPostgres.shared().close();
    LocalKafka.shared().close();
    System.exit(0); // non-daemon client threads would keep the JVM alive
  }

  private static final String MCP_ACCEPT = "application/json, text/event-stream";

  /** One kind of request: name, method, path, body (null: none), extra headers (name, value...). */
  // headers as the varargs HttpRequest.Builder#headers takes them; a call is sent, never compared
  @SuppressWarnings("ArrayRecordComponent")
  private record Call(String name, String method, String path, String body, String[] headers) {}

  /**
   * Throughput and latency percentiles of one run, and its CPU per request by part ({@link
   * BenchCpu#PARTS}, nanoseconds).
   */
  private record Rate(double perSecond, double p50, double p99, Map<String, Double> cpu) {
    double cpuTotal() {
      return cpu.values().stream().mapToDouble(Double::doubleValue).sum();
    }
  }

  /**
   * Where a request's CPU went, in ms, and the CPU cost of the baseline's request over this one's:
   * the throughput ratio the route would reach on cores of its own, whatever else the machine runs.
   */
  private static void printCpu(Rate r, Rate baseline) {
    StringBuilder line = new StringBuilder("    CPU per request:");
    r.cpu().forEach((part, nanos) -> line.append(String.format(" %s %.3f", part, nanos / 1e6)));
    line.append(String.format("  = %.3f ms", r.cpuTotal() / 1e6));
    if (!r.equals(baseline)) {
      line.append(
          String.format("; GET /health's / this: %.2f", baseline.cpuTotal() / r.cpuTotal()));
    }
    System.out.println(line);
  }

  /** A Streamable HTTP session on the gateway's /mcp, initialized, for the MCP tools/call runs. */
  private static String mcpSession(String base) throws Exception {
    HttpResponse<String> init =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/mcp"))
                .header("Content-Type", "application/json")
                .header("Accept", MCP_ACCEPT)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                            + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                            + "\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HTTP.send(
        HttpRequest.newBuilder(URI.create(base + "/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", MCP_ACCEPT)
            .header("Mcp-Session-Id", session)
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"))
            .build(),
        HttpResponse.BodyHandlers.discarding());
    return session;
  }

  /** Requests/s and latency with {@code clients} concurrent clients for {@code seconds}. */
  private static Rate rate(String base, Call call, int clients, int seconds) throws Exception {
    String method = call.method();
    String path = call.path();
    String body = call.body();
    Queue<Long> latencies = new ConcurrentLinkedQueue<>();
    AtomicLong done = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    AtomicLong threads = new AtomicLong();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            clients, task -> new Thread(task, "bench-caller-" + threads.incrementAndGet()));
    CountDownLatch finished = new CountDownLatch(clients);
    BenchCpu cpu = new BenchCpu();
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      pool.execute(
          () -> {
            try {
              while (System.nanoTime() < end) {
                HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path));
                for (int h = 0; h < call.headers().length; h += 2) {
                  req.header(call.headers()[h], call.headers()[h + 1]);
                }
                long sent = System.nanoTime();
                req =
                    body == null
                        ? req.GET()
                        : req.header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body));
                HttpResponse<String> r =
                    HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200 || r.body().contains("\"isError\":true")) {
                  throw new IllegalStateException(
                      method + " " + path + " answered " + r.statusCode() + ": " + r.body());
                }
                latencies.add(System.nanoTime() - sent);
                done.incrementAndGet();
              }
            } catch (Exception e) {
              throw new IllegalStateException(e);
            } finally {
              cpu.callerDone();
              finished.countDown();
            }
          });
    }
    finished.await();
    pool.shutdown();
    double perSecond = done.get() / ((System.nanoTime() - start) / 1e9);
    Map<String, Double> perRequest = new LinkedHashMap<>();
    cpu.spent().forEach((part, nanos) -> perRequest.put(part, nanos / (double) done.get()));
    long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    return new Rate(perSecond, percentile(sorted, 50), percentile(sorted, 99), perRequest);
  }

  private static double percentile(long[] sorted, int p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}

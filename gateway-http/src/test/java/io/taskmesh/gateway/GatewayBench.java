package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.devkit.SseReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
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
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On-demand benchmark (not a test): tools/call vs a trivial route on the same server, and FLY from
 * POST /mesh/{id}/fly on replica B to an SSE client on replica A vs raw NOTIFY/LISTEN. Each
 * 64-client route also prints its CPU time per request by part ({@link BenchCpu}), the figure that
 * survives a machine shared with other work. Run: mvn -q -pl gateway-http test-compile exec:java
 * -Dexec.mainClass=io.taskmesh.gateway.GatewayBench -Dexec.classpathScope=test (see README).
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
      String baseB = "http://127.0.0.1:" + b.port();
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
                  + "{\"name\":\"echo\",\"arguments\":{\"x\":1}}}",
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

      int events = 5000;
      double raw = rawNotify(pg, events);
      double fly = flyAcrossReplicas(baseA, baseB, events);
      System.out.printf(
          "FLY B->A over NOTIFY to an SSE client: %.0f events/s; raw NOTIFY/LISTEN via pgjdbc: %.0f/s; ratio %.2f%n",
          fly, raw, fly / raw);
    }
    LocalPostgres.shared().close();
    LocalKafka.shared().close();
    System.exit(0); // non-daemon client threads would keep the JVM alive
  }

  private static final String MCP_ACCEPT = "application/json, text/event-stream";

  /** One kind of request: name, method, path, body (null: none), extra headers (name, value...). */
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
    if (r != baseline) {
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

  private static double rawNotify(String pg, int events) throws Exception {
    try (Connection listen = DriverManager.getConnection(pg);
        Connection notify = DriverManager.getConnection(pg)) {
      listen.createStatement().execute("LISTEN bench");
      PGConnection pgl = listen.unwrap(PGConnection.class);
      long start = System.nanoTime();
      Thread sender =
          new Thread(
              () -> {
                try (PreparedStatement ps =
                    notify.prepareStatement("SELECT pg_notify('bench', ?)")) {
                  for (int i = 0; i < events; i++) {
                    ps.setString(1, "t:{\"partial\":true,\"text\":\"tok" + i + "\"}");
                    ps.execute();
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      sender.start();
      int got = 0;
      while (got < events) {
        PGNotification[] n = pgl.getNotifications(1000);
        got += n == null ? 0 : n.length;
      }
      sender.join();
      return events / ((System.nanoTime() - start) / 1e9);
    }
  }

  /** A task on A, an SSE client on A, FLY posted to B by 4 threads; events/s as received. */
  private static double flyAcrossReplicas(String baseA, String baseB, int events) throws Exception {
    HttpResponse<String> call =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(baseA + "/tools/call"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"echo\",\"arguments\":{}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String id = call.body().replaceAll(".*task_id\\\\\":\\\\\"([^\\\\]+).*", "$1");
    SseReader sse = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (sse == null && System.nanoTime() < deadline) {
      SseReader r = SseReader.open(baseA + "/stream/" + id, null);
      if (r.status() == 200) {
        sse = r;
      } else {
        r.close();
      }
    }
    try (SseReader stream = sse) {
      Thread.sleep(300); // let the subscription settle before timing
      long start = System.nanoTime();
      ExecutorService posters = Executors.newFixedThreadPool(4);
      for (int t = 0; t < 4; t++) {
        int from = t;
        posters.execute(
            () -> {
              for (int i = from; i < events; i += 4) {
                try {
                  HTTP.send(
                      HttpRequest.newBuilder(URI.create(baseB + "/mesh/" + id + "/fly"))
                          .header("Content-Type", "application/json")
                          .POST(
                              HttpRequest.BodyPublishers.ofString(
                                  "{\"partial\":true,\"text\":\"tok" + i + "\"}"))
                          .build(),
                      HttpResponse.BodyHandlers.discarding());
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              }
            });
      }
      int got = 0;
      long lastAt = start;
      while (got < events) {
        SseReader.Event e = stream.next(Duration.ofSeconds(10));
        if (e == null) {
          break; // the SSE client's 100-event FLY buffer may have dropped some: at most once
        }
        if (e.event().equals("partial")) {
          got++;
          lastAt = System.nanoTime();
        }
      }
      posters.shutdown();
      posters.awaitTermination(1, TimeUnit.MINUTES);
      // up to the last event received: the idle wait that detects drops is not counted
      double rate = got / ((lastAt - start) / 1e9);
      System.out.printf(
          "  (FLY received %d of %d posted by 4 threads; the rest dropped by the 100-event buffer)%n",
          got, events);
      return rate;
    }
  }
}

package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On-demand benchmark (not a test): {@code tools/call} over MCP Streamable HTTP ({@code POST /mcp},
 * one session per client) against {@code POST /tools/call}, same gateway, same run, 8 clients. Run
 * (class path: benchmarks/README.md): {@code java -cp "$CP" io.taskmesh.gateway.McpBench
 * [SECONDS]}.
 */
public final class McpBench {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CLIENTS = 8;
  private static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Path dir = Files.createTempDirectory("mcp-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    Map<String, String> env = TaskHttp.singleEnv("api", dir, flows, "mcp-bench");
    try (Gateway gateway = TaskHttp.start(env)) {
      String base = "http://127.0.0.1:" + gateway.port();
      for (int warm = 0; warm < 2; warm++) {
        restRate(base, 1);
        mcpRate(base, 1);
      }
      // A-B-B-A, so a drift of the shared machine's load falls on both sides
      double rest = restRate(base, seconds);
      double mcp = mcpRate(base, seconds);
      mcp = (mcp + mcpRate(base, seconds)) / 2;
      rest = (rest + restRate(base, seconds)) / 2;
      System.out.printf(
          "tools/call over MCP (POST /mcp): %.0f req/s; POST /tools/call on the same gateway:"
              + " %.0f req/s; ratio %.2f%n",
          mcp, rest, mcp / rest);
    }
    LocalKafka.shared().close();
    System.exit(0); // non-daemon client threads would keep the JVM alive
  }

  private static double restRate(String base, int seconds) throws Exception {
    return rate(
        seconds,
        () -> null,
        (session, n) ->
            post(
                base + "/tools/call", "{\"name\":\"echo\",\"arguments\":{\"x\":" + n + "}}", null));
  }

  private static double mcpRate(String base, int seconds) throws Exception {
    return rate(
        seconds,
        () -> {
          HttpResponse<String> r = post(base + "/mcp", INIT, null);
          return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
        },
        (session, n) ->
            post(
                base + "/mcp",
                "{\"jsonrpc\":\"2.0\",\"id\":"
                    + n
                    // a task-augmented call answers once the task started, as /tools/call does;
                    // a plain one would wait for the flow's result
                    + ",\"method\":\"tools/call\",\"params\":{\"task\":{},\"name\":\"echo\","
                    + "\"arguments\":{\"x\":"
                    + n
                    + "}}}",
                session));
  }

  interface Setup {
    String session() throws Exception;
  }

  interface Call {
    HttpResponse<String> send(String session, long n) throws Exception;
  }

  /** Calls/s with {@link #CLIENTS} concurrent clients for {@code seconds}. */
  private static double rate(int seconds, Setup setup, Call call) throws Exception {
    AtomicLong done = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    CountDownLatch finished = new CountDownLatch(CLIENTS);
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    for (int i = 0; i < CLIENTS; i++) {
      pool.execute(
          () -> {
            try {
              String session = setup.session();
              while (System.nanoTime() < end) {
                HttpResponse<String> r = call.send(session, done.get());
                if (r.statusCode() != 200 || r.body().contains("\"isError\":true")) {
                  throw new IllegalStateException(r.statusCode() + " " + r.body());
                }
                done.incrementAndGet();
              }
            } catch (Exception e) {
              throw new IllegalStateException(e);
            } finally {
              finished.countDown();
            }
          });
    }
    finished.await();
    pool.shutdown();
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }

  private static HttpResponse<String> post(String url, String body, String session)
      throws Exception {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      req.header("Mcp-Session-Id", session);
    }
    return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
  }
}

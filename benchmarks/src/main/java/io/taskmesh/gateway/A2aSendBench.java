package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * On-demand benchmark (not a test): A2A 1.0 {@code SendMessage} with {@code returnImmediately}
 * (non-blocking) against {@code POST /tools/call} on the same gateway (api mode, one broker), 8
 * clients, rounds interleaved A-B-B-A so that drift on a shared machine favours neither. Both start
 * one task of the same one-actor flow; nothing runs the actor, so this measures the edge: parse,
 * validate, produce the created event, answer. The non-blocking send also waits until its task is
 * folded (read-your-writes, so a GetTask right after finds it), which tools/call does not. Run:
 * {@code java -cp "$CP" io.taskmesh.gateway.A2aSendBench 5} (class path: benchmarks/README.md).
 */
public final class A2aSendBench {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CLIENTS = 8;

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    Path dir = Files.createTempDirectory("a2a-send-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}, a2a: {}}\n");
    String prefix = "a2abench-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> env =
        TaskHttp.env(prefix, dir.resolve("state"), flows, TaskHttp.freePort());
    env.put("SVC_GATEWAY_MODE", "api");
    try (Gateway gateway = TaskHttp.start(env)) {
      String base = "http://127.0.0.1:" + gateway.port();
      Call tools =
          new Call(
              base + "/tools/call", "{\"name\":\"echo\",\"arguments\":{\"x\":1}}", Map.of(), "");
      Call send =
          new Call(
              base + "/a2a/v1",
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":"
                  + "{\"role\":\"ROLE_USER\",\"messageId\":\"m\",\"parts\":[{\"data\":{\"x\":1}}]},"
                  + "\"configuration\":{\"returnImmediately\":true}}}",
              Map.of("A2A-Version", "1.0"),
              "\"task\"");
      for (int warm = 0; warm < 2; warm++) {
        rate(tools, 1);
        rate(send, 1);
      }
      double toolsRate = 0;
      double sendRate = 0;
      for (int round = 0; round < rounds; round++) {
        if (round % 2 == 0) {
          toolsRate += rate(tools, seconds) / rounds;
          sendRate += rate(send, seconds) / rounds;
        } else {
          sendRate += rate(send, seconds) / rounds;
          toolsRate += rate(tools, seconds) / rounds;
        }
      }
      System.out.printf(
          "A2A 1.0 SendMessage (returnImmediately): %.0f req/s; POST /tools/call on the same"
              + " gateway: %.0f req/s; ratio %.2f (%d rounds of %d s, %d clients)%n",
          sendRate, toolsRate, sendRate / toolsRate, rounds, seconds, CLIENTS);
    }
    LocalKafka.shared().close();
    System.exit(0); // non-daemon client threads would keep the JVM alive
  }

  /** One request shape; an answer without {@code mustContain} is a failure, not a count. */
  private record Call(String url, String body, Map<String, String> headers, String mustContain) {}

  /** Requests/s with {@link #CLIENTS} concurrent clients for {@code seconds}. */
  private static double rate(Call call, int seconds) throws Exception {
    AtomicLong done = new AtomicLong();
    AtomicReference<Exception> failed = new AtomicReference<>();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    CountDownLatch finished = new CountDownLatch(CLIENTS);
    long start = System.nanoTime();
    for (int i = 0; i < CLIENTS; i++) {
      pool.execute(
          () -> {
            try {
              while (System.nanoTime() < end && failed.get() == null) {
                HttpRequest.Builder req =
                    HttpRequest.newBuilder(URI.create(call.url()))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(call.body()));
                call.headers().forEach(req::header);
                HttpResponse<String> r =
                    HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200 || !r.body().contains(call.mustContain())) {
                  throw new IllegalStateException(
                      call.url() + " answered " + r.statusCode() + ": " + r.body());
                }
                done.incrementAndGet();
              }
            } catch (Exception e) {
              failed.compareAndSet(null, e);
            } finally {
              finished.countDown();
            }
          });
    }
    finished.await();
    pool.shutdown();
    if (failed.get() != null) {
      throw failed.get();
    }
    return done.get() / ((System.nanoTime() - start) / 1e9);
  }
}

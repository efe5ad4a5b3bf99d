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
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On-demand benchmark (not a test): tools/call vs a trivial route on the same server, and FLY from
 * POST /mesh/{id}/fly on replica B to an SSE client on replica A vs raw NOTIFY/LISTEN. Run: mvn -q
 * -pl gateway-http test-compile exec:java -Dexec.mainClass=io.taskmesh.gateway.GatewayBench
 * -Dexec.classpathScope=test (see README).
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
      for (int warm = 0; warm < 2; warm++) {
        rate(baseA, "GET", "/health", null, 1);
        rate(baseA, "POST", "/tools/call", "{\"name\":\"echo\",\"arguments\":{}}", 1);
      }
      double trivial = rate(baseA, "GET", "/health", null, seconds);
      double tools =
          rate(
              baseA, "POST", "/tools/call", "{\"name\":\"echo\",\"arguments\":{\"x\":1}}", seconds);
      System.out.printf(
          "tools/call: %.0f req/s; trivial GET /health on the same server: %.0f req/s; ratio %.2f%n",
          tools, trivial, tools / trivial);

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

  /** Requests/s with 8 concurrent clients for {@code seconds}. */
  private static double rate(String base, String method, String path, String body, int seconds)
      throws Exception {
    int clients = 8;
    AtomicLong done = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    CountDownLatch finished = new CountDownLatch(clients);
    long start = System.nanoTime();
    for (int i = 0; i < clients; i++) {
      pool.execute(
          () -> {
            try {
              while (System.nanoTime() < end) {
                HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path));
                req =
                    body == null
                        ? req.GET()
                        : req.header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body));
                HttpResponse<Void> r =
                    HTTP.send(req.build(), HttpResponse.BodyHandlers.discarding());
                if (r.statusCode() != 200) {
                  throw new IllegalStateException(
                      method + " " + path + " answered " + r.statusCode());
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

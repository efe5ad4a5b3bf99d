package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On-demand benchmark (not a test): {@code POST /tools/call} with an OAuth access token against the
 * same call with the static key ({@code SVC_MCP_API_KEY}) on a gateway of its own in the same run
 * (the two modes are mutually exclusive), and {@code /oauth/token} code exchanges per second. Run
 * (class path: benchmarks/README.md): {@code java -cp "$CP" io.taskmesh.gateway.OAuthBench
 * [SECONDS]}.
 */
public final class OAuthBench {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final int CLIENTS = 8;
  private static final String CALL = "{\"name\":\"echo\",\"arguments\":{\"x\":1}}";

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    Path dir = Files.createTempDirectory("oauth-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String prefix = "oauth-bench-" + UUID.randomUUID().toString().substring(0, 8);
    String key = "static-" + UUID.randomUUID();
    int oauthPort = TaskHttp.freePort();
    Map<String, String> staticEnv =
        TaskHttp.env(prefix + "-s", dir.resolve("s"), flows, TaskHttp.freePort());
    staticEnv.put("SVC_GATEWAY_MODE", "api");
    staticEnv.put("SVC_MCP_API_KEY", key);
    staticEnv.put(
        "SVC_DATABASE_URL", LocalPostgres.shared().jdbcUrl()); // same FLY path: only auth differs
    Map<String, String> oauthEnv = TaskHttp.env(prefix + "-o", dir.resolve("o"), flows, oauthPort);
    oauthEnv.put("SVC_GATEWAY_MODE", "api");
    oauthEnv.put("SVC_MCP_OAUTH_ENABLED", "true");
    oauthEnv.put("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:" + oauthPort);
    oauthEnv.put("SVC_MCP_OAUTH_SECRET", "bench-secret-" + UUID.randomUUID());
    oauthEnv.put("SVC_DATABASE_URL", LocalPostgres.shared().jdbcUrl());
    try (Gateway s = TaskHttp.start(staticEnv);
        Gateway o = TaskHttp.start(oauthEnv)) {
      String staticBase = "http://127.0.0.1:" + s.port();
      String oauthBase = "http://127.0.0.1:" + o.port();
      String client = OAuthFlows.register(oauthBase, null);
      String access = OAuthFlows.login(oauthBase, client).access();
      for (int warm = 0; warm < 2; warm++) {
        callRate(staticBase, key, 1);
        callRate(oauthBase, access, 1);
      }
      // interleaved in A-B-B-A order, so drift in the shared machine or the JIT favours neither
      // side
      int rounds = 4;
      double staticRate = 0;
      double oauthRate = 0;
      for (int round = 0; round < rounds; round++) {
        if (round % 2 == 0) {
          staticRate += callRate(staticBase, key, seconds) / rounds;
          oauthRate += callRate(oauthBase, access, seconds) / rounds;
        } else {
          oauthRate += callRate(oauthBase, access, seconds) / rounds;
          staticRate += callRate(staticBase, key, seconds) / rounds;
        }
      }
      System.out.printf(
          "tools/call with an OAuth bearer: %.0f req/s; with the static key: %.0f req/s; ratio %.2f%n",
          oauthRate, staticRate, oauthRate / staticRate);
      int exchanges = 2000;
      double perSecond = exchangeRate(oauthBase, client, exchanges);
      System.out.printf(
          "/oauth/token code exchanges: %.0f/s (%d exchanges, %d clients, codes minted beforehand)%n",
          perSecond, exchanges, CLIENTS);
    }
    LocalPostgres.shared().close();
    LocalKafka.shared().close();
    System.exit(0); // non-daemon client threads would keep the JVM alive
  }

  private static double callRate(String base, String bearer, int seconds) throws Exception {
    return concurrently(
        seconds,
        () -> {
          HttpResponse<Void> r =
              HTTP.send(
                  HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                      .header("Content-Type", "application/json")
                      .header("Authorization", "Bearer " + bearer)
                      .POST(HttpRequest.BodyPublishers.ofString(CALL))
                      .build(),
                  HttpResponse.BodyHandlers.discarding());
          check(r.statusCode(), "tools/call");
          return true;
        });
  }

  /** Mints {@code n} codes (authorize), then times only their exchange at /oauth/token. */
  private static double exchangeRate(String base, String client, int n) throws Exception {
    ConcurrentLinkedQueue<Map<String, String>> forms = new ConcurrentLinkedQueue<>();
    List<Thread> minters = new ArrayList<>();
    for (int t = 0; t < CLIENTS; t++) {
      Thread m =
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < n / CLIENTS; i++) {
                    String v = OAuthFlows.verifier();
                    forms.add(OAuthFlows.exchangeForm(client, OAuthFlows.code(base, client, v), v));
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      m.start();
      minters.add(m);
    }
    for (Thread m : minters) {
      m.join();
    }
    int total = forms.size();
    long start = System.nanoTime();
    concurrently(
        Integer.MAX_VALUE,
        () -> {
          Map<String, String> f = forms.poll();
          if (f == null) {
            return false;
          }
          check(OAuthFlows.token(base, f).statusCode(), "token");
          return true;
        });
    return total / ((System.nanoTime() - start) / 1e9);
  }

  private interface Step {
    boolean run() throws Exception;
  }

  /**
   * Operations/s of {@link #CLIENTS} threads repeating {@code step} until it says stop or time is
   * up.
   */
  private static double concurrently(int seconds, Step step) throws Exception {
    AtomicLong done = new AtomicLong();
    long start = System.nanoTime();
    long end =
        seconds == Integer.MAX_VALUE ? Long.MAX_VALUE : start + TimeUnit.SECONDS.toNanos(seconds);
    ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
    CountDownLatch finished = new CountDownLatch(CLIENTS);
    for (int i = 0; i < CLIENTS; i++) {
      pool.execute(
          () -> {
            try {
              while (System.nanoTime() < end && step.run()) {
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

  private static void check(int status, String what) {
    if (status != 200) {
      throw new IllegalStateException(what + " answered " + status);
    }
  }
}

package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.servicekit.ApiException;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The GETs of one event-loop pass share a round trip to Postgres ({@link KeyStatements#get}): each
 * still gets its own row (or none), a batch is split at {@link PassBatcher#MAX_BATCH}, a failed
 * batch fails each of its GETs with a 503, and concurrent GETs over the socket each get the record
 * of their own key. The conditional PUTs of one pass share one transaction ({@link
 * KeyStatements#putIfStatus}): each gets its own outcome, a write Postgres refuses fails alone, and
 * concurrent compare-and-set chains over the socket lose no update.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KeyStatementsIT {

  @Test
  void theGetsOfOnePassShareARoundTripAndEachGetsItsOwnRow() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of())) {
      insert(kv, 150);
      onLoop(
          kv.config,
          2,
          (context, db) -> {
            // warm the pool: the first statement opens a connection and prepares
            await(onContext(context, () -> db.get("k0")));

            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
              keys.add(i % 3 == 2 ? "missing-" + i : "k" + i);
            }
            long trips0 = KeyStatements.readRoundTrips();
            long sent0 = KeyStatements.readsSent();
            List<Optional<KvRecord>> got = getAllInOnePass(context, db, keys);
            assertThat(KeyStatements.readRoundTrips() - trips0).isEqualTo(1);
            assertThat(KeyStatements.readsSent() - sent0).isEqualTo(10);
            for (int i = 0; i < keys.size(); i++) {
              if (keys.get(i).startsWith("missing-")) {
                assertThat(got.get(i)).as(keys.get(i)).isEmpty();
              } else {
                assertThat(got.get(i)).as(keys.get(i)).isPresent();
                assertThat(got.get(i).get().key()).isEqualTo(keys.get(i));
                assertThat(got.get(i).get().valueJson()).isEqualTo(valueOf(keys.get(i)));
              }
            }

            // 150 in one pass: split into batches of at most MAX_BATCH, still one answer per key
            List<String> many = new ArrayList<>();
            for (int i = 149; i >= 0; i--) {
              many.add("k" + i);
            }
            trips0 = KeyStatements.readRoundTrips();
            got = getAllInOnePass(context, db, many);
            assertThat(KeyStatements.readRoundTrips() - trips0).isEqualTo(3);
            for (int i = 0; i < many.size(); i++) {
              assertThat(got.get(i).orElseThrow().valueJson()).isEqualTo(valueOf(many.get(i)));
            }
          });
    }
  }

  @Test
  void aBatchThatCannotReachPostgresFailsEachGetAndPutWith503() throws Exception {
    int closedPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort(); // nothing listens there once closed
    }
    KvConfig config =
        KvConfig.fromEnv(
            Map.of(
                "CONNECTOR_SOCKET",
                Files.createTempDirectory("kvs").resolve("kv.sock").toString(),
                "STATE_PROXY_PG_URL",
                "jdbc:postgresql://127.0.0.1:" + closedPort + "/kv?user=nobody",
                "CONNECTOR_PG_TIMEOUT_MS",
                "500"));
    onLoop(
        config,
        1,
        (context, db) -> {
          List<Future<Optional<KvRecord>>> answers =
              onContext(
                  context,
                  () -> {
                    List<Future<Optional<KvRecord>>> fs = new ArrayList<>();
                    for (int i = 0; i < 5; i++) {
                      fs.add(db.get("k" + i));
                    }
                    return fs;
                  });
          List<Future<Optional<KeyStatements.PutResult>>> writes =
              onContext(
                  context,
                  () -> {
                    List<Future<Optional<KeyStatements.PutResult>>> fs = new ArrayList<>();
                    for (int i = 0; i < 5; i++) {
                      fs.add(db.putIfStatus("k" + i, "{\"status\":\"done\"}", "pending"));
                    }
                    return fs;
                  });
          List<Future<?>> all = new ArrayList<>(answers);
          all.addAll(writes);
          for (Future<?> f : all) {
            Throwable failure = failureOf(f);
            assertThat(failure).isInstanceOf(ApiException.class);
            assertThat(((ApiException) failure).status()).isEqualTo(503);
          }
        });
  }

  @Test
  void theConditionalPutsOfOnePassShareOneTransactionAndEachGetsItsOwnOutcome() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of())) {
      insertWithStatus(kv, 10, "pending");
      onLoop(
          kv.config,
          2,
          (context, db) -> {
            long trips0 = KeyStatements.writeRoundTrips();
            long sent0 = KeyStatements.writesSent();
            List<Future<Optional<KeyStatements.PutResult>>> fs =
                onContext(
                    context,
                    () ->
                        List.of(
                            db.putIfStatus("k5", "{\"status\":\"running\",\"n\":5}", "pending"),
                            db.putIfStatus("k1", "{\"status\":\"running\",\"n\":1}", "pending"),
                            db.putIfStatus(
                                "k2",
                                "{\"status\":\"running\",\"n\":2}",
                                "queued"), // stored: pending
                            db.putIfStatus("missing", "{\"status\":\"running\"}", "pending"),
                            // two writes of one key in one pass: the second sees the first, as it
                            // would alone
                            db.putIfStatus("k7", "{\"status\":\"running\",\"n\":7}", "pending"),
                            db.putIfStatus("k7", "{\"status\":\"done\",\"n\":7}", "pending"),
                            db.putIfStatus("k3", "{\"status\":\"done\",\"n\":3}", "pending")));
            List<Optional<KeyStatements.PutResult>> got = new ArrayList<>();
            for (Future<Optional<KeyStatements.PutResult>> f : fs) {
              got.add(await(f));
            }
            assertThat(KeyStatements.writeRoundTrips() - trips0).isEqualTo(1);
            assertThat(KeyStatements.writesSent() - sent0).isEqualTo(7);
            assertThat(got)
                .extracting(Optional::isPresent)
                .containsExactly(true, true, false, false, true, false, true);
            assertThat(got.get(0).orElseThrow().created()).isFalse();
            assertThat(statuses(kv))
                .containsEntry("k5", "running")
                .containsEntry("k1", "running")
                .containsEntry("k2", "pending")
                .containsEntry("k7", "running")
                .containsEntry("k3", "done")
                .containsEntry("k0", "pending")
                .doesNotContainKey("missing");
            try (Connection c = kv.jdbc();
                PreparedStatement ps =
                    c.prepareStatement(
                        "SELECT count(DISTINCT xmin::text) FROM kv WHERE key IN ('k1', 'k3', 'k5', 'k7')");
                ResultSet rs = ps.executeQuery()) {
              rs.next();
              assertThat(rs.getInt(1)).as("transactions that wrote the batch's rows").isEqualTo(1);
            }
          });
    }
  }

  @Test
  void aWritePostgresRefusesFailsAloneAndTheOthersOfItsPassAreWritten() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of())) {
      insertWithStatus(kv, 5, "pending");
      onLoop(
          kv.config,
          2,
          (context, db) -> {
            // valid JSON, but jsonb refuses \u0000 (SQLSTATE 22P05): the batch's transaction aborts
            List<Future<Optional<KeyStatements.PutResult>>> fs =
                onContext(
                    context,
                    () ->
                        List.of(
                            db.putIfStatus("k0", "{\"status\":\"done\"}", "pending"),
                            db.putIfStatus(
                                "k1", "{\"status\":\"done\",\"s\":\"\\u0000\"}", "pending"),
                            db.putIfStatus("k2", "{\"status\":\"done\"}", "pending"),
                            db.putIfStatus("k3", "{\"status\":\"done\"}", "queued")));
            assertThat(await(fs.get(0))).isPresent();
            Throwable refused = failureOf(fs.get(1));
            assertThat(refused).isInstanceOf(PgException.class);
            assertThat(((PgException) refused).getSqlState()).startsWith("22");
            assertThat(await(fs.get(2))).isPresent();
            assertThat(await(fs.get(3))).isEmpty();
            assertThat(statuses(kv))
                .containsEntry("k0", "done")
                .containsEntry("k1", "pending")
                .containsEntry("k2", "done")
                .containsEntry("k3", "pending");
          });
    }
  }

  @Test
  void concurrentCompareAndSetChainsOverTheSocketLoseNoUpdate() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of());
        UnixHttpClient client = new UnixHttpClient(kv.config.socket())) {
      insertWithStatus(kv, 4, "s0");
      AtomicIntegerArray moves = new AtomicIntegerArray(4);
      ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
      Pattern status = Pattern.compile("\"status\": ?\"s(\\d+)\"");
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 12; t++) {
        int thread = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 150; i++) {
                      int k = (i + thread) % 4;
                      Matcher m =
                          status.matcher(
                              client.send("GET", "/keys/k" + k, null, null).bodyString());
                      if (!m.find()) {
                        wrong.add("k" + k + ": no status");
                        continue;
                      }
                      int n = Integer.parseInt(m.group(1));
                      byte[] next =
                          ("{\"status\":\"s" + (n + 1) + "\"}").getBytes(StandardCharsets.UTF_8);
                      HttpResponse r =
                          client.send("PUT", "/keys/k" + k + "?if_status=s" + n, null, next);
                      if (r.status() == 200) {
                        moves.incrementAndGet(k);
                      } else if (r.status() != 409) {
                        wrong.add("k" + k + " -> " + r.status() + " " + r.bodyString());
                      }
                    }
                  } catch (Exception e) {
                    wrong.add(e.toString());
                  }
                });
        th.start();
        threads.add(th);
      }
      for (Thread th : threads) {
        th.join();
      }
      assertThat(wrong).isEmpty();
      Map<String, String> stored = statuses(kv);
      int total = 0;
      for (int k = 0; k < 4; k++) {
        // every acknowledged move is in the row, and nothing else is
        assertThat(stored.get("k" + k)).isEqualTo("s" + moves.get(k));
        total += moves.get(k);
      }
      assertThat(total).isPositive();
    }
  }

  @Test
  void concurrentGetsOverTheSocketEachGetTheirOwnKey() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of());
        UnixHttpClient client = new UnixHttpClient(kv.config.socket())) {
      insert(kv, 200);
      ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 12; t++) {
        int thread = t;
        Thread th =
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 300; i++) {
                      int n = (i * 7 + thread * 31) % 230; // 200..229 do not exist
                      HttpResponse r = client.send("GET", "/keys/k" + n, null, null);
                      String body = r.bodyString();
                      boolean ok =
                          n < 200
                              ? r.status() == 200
                                  && body.contains("\"key\":\"k" + n + "\"")
                                  && body.contains("\"n\": " + n + "}")
                              : r.status() == 404;
                      if (!ok) {
                        wrong.add("k" + n + " -> " + r.status() + " " + body);
                      }
                    }
                  } catch (Exception e) {
                    wrong.add(e.toString());
                  }
                });
        th.start();
        threads.add(th);
      }
      for (Thread th : threads) {
        th.join();
      }
      assertThat(wrong).isEmpty();
    }
  }

  private static void insert(KvFixture kv, int n) throws Exception {
    try (Connection c = kv.jdbc();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO kv (key, value) VALUES (?, ?::jsonb)")) {
      for (int i = 0; i < n; i++) {
        ps.setString(1, "k" + i);
        ps.setString(2, valueOf("k" + i));
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static void insertWithStatus(KvFixture kv, int n, String status) throws Exception {
    try (Connection c = kv.jdbc();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO kv (key, value) VALUES (?, jsonb_build_object('status', ?::text))")) {
      for (int i = 0; i < n; i++) {
        ps.setString(1, "k" + i);
        ps.setString(2, status);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }

  private static Map<String, String> statuses(KvFixture kv) throws Exception {
    Map<String, String> out = new HashMap<>();
    try (Connection c = kv.jdbc();
        PreparedStatement ps = c.prepareStatement("SELECT key, value->>'status' FROM kv");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  private static String valueOf(String key) {
    return "{\"n\": " + key.substring(1) + "}";
  }

  /** Calls {@code get} for every key inside one task of the loop, so that all join one pass. */
  private static List<Optional<KvRecord>> getAllInOnePass(
      Context context, KeyStatements db, List<String> keys) throws Exception {
    List<Future<Optional<KvRecord>>> fs =
        onContext(
            context,
            () -> {
              List<Future<Optional<KvRecord>>> out = new ArrayList<>();
              keys.forEach(k -> out.add(db.get(k)));
              return out;
            });
    List<Optional<KvRecord>> got = new ArrayList<>();
    for (Future<Optional<KvRecord>> f : fs) {
      got.add(await(f));
    }
    return got;
  }

  /** What a test does on one event loop with its {@link KeyStatements}. */
  @FunctionalInterface
  private interface OnLoop {
    void run(Context context, KeyStatements db) throws Exception;
  }

  /**
   * Runs {@code body} with a {@link KeyStatements} created on a fresh event loop, then closes both.
   */
  private static void onLoop(KvConfig config, int connections, OnLoop body) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Context context = vertx.getOrCreateContext();
      KeyStatements db =
          onContext(context, () -> new KeyStatements(vertx, context, config, connections));
      try {
        body.run(context, db);
      } finally {
        await(onContext(context, db::close));
      }
    } finally {
      await(vertx.close());
    }
  }

  /** The failure {@code f} ends with (null if it succeeds). */
  private static Throwable failureOf(Future<?> f) throws Exception {
    return f.toCompletionStage()
        .toCompletableFuture()
        .handle((ok, e) -> e)
        .get(30, TimeUnit.SECONDS);
  }

  private static <T> T onContext(Context context, java.util.concurrent.Callable<T> task)
      throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    context.runOnContext(
        v -> {
          try {
            result.complete(task.call());
          } catch (Throwable e) {
            result.completeExceptionally(e);
          }
        });
    return result.get(30, TimeUnit.SECONDS);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }
}

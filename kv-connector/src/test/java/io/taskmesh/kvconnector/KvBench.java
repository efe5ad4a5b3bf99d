package io.taskmesh.kvconnector;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On-demand benchmark (not a test): kv GET and conditional PUT over the Unix socket against the
 * same statements straight through pgjdbc, same Postgres, same run, same client threads.
 * {@code mvn -o -q -pl kv-connector test-compile exec:java -Dexec.mainClass=io.taskmesh.kvconnector.KvBench
 * -Dexec.classpathScope=test}
 */
public final class KvBench {
  interface Op {
    void run(int key) throws Exception;
  }

  static final int KEYS = 1000;
  static final int THREADS = Integer.getInteger("threads", 8);
  static final long WARMUP_MS = 2000;
  static final long RUN_MS = 5000;

  public static void main(String[] args) throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of("STATE_PROXY_PG_INDEXES", "status", "CONNECTOR_PG_POOL_SIZE", "8"))) {
      String value = "{\"status\":\"pending\",\"n\":1,\"data\":{\"actor\":\"echo\",\"progress\":0}}";
      for (int i = 0; i < KEYS; i++) {
        kv.http.put("/keys/bench:" + i, value);
      }
      HikariConfig hc = new HikariConfig();
      hc.setJdbcUrl(kv.jdbcUrl);
      hc.setMaximumPoolSize(8);
      try (HikariDataSource ds = new HikariDataSource(hc)) {
        double directGet = measure("direct pgjdbc GET", k -> {
          try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
              "SELECT key, value::text, created_at, updated_at FROM kv WHERE key = ?")) {
            ps.setString(1, "bench:" + k);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              rs.getString(2);
            }
          }
        });
        double socketGet = measure("kv socket GET", k -> check(kv.http.get("/keys/bench:" + k), 200));
        double directPut = measure("direct pgjdbc conditional UPDATE", k -> {
          try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(
              "UPDATE kv SET value = ?::jsonb, updated_at = now() WHERE key = ? AND (value->>'status') = ? "
                  + "RETURNING created_at, updated_at")) {
            ps.setString(1, value);
            ps.setString(2, "bench:" + k);
            ps.setString(3, "pending");
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
            }
          }
        });
        double socketPut = measure("kv socket PUT ?if_status", k ->
            check(kv.http.put("/keys/bench:" + k + "?if_status=pending", value), 200));
        System.out.printf("%nRATIO GET socket/direct = %.2f   conditional PUT socket/direct = %.2f%n",
            socketGet / directGet, socketPut / directPut);
      }
    }
    System.exit(0);
  }

  static void check(UnixHttp.Resp r, int status) {
    if (r.status() != status) {
      throw new IllegalStateException(r.status() + " " + r.body());
    }
  }

  static double measure(String name, Op op) throws Exception {
    run(op, WARMUP_MS);
    long n = run(op, RUN_MS);
    double perSec = n * 1000.0 / RUN_MS;
    System.out.printf("%-36s %9.0f ops/s (%d threads)%n", name, perSec, THREADS);
    return perSec;
  }

  static long run(Op op, long millis) throws Exception {
    AtomicLong count = new AtomicLong();
    long end = System.currentTimeMillis() + millis;
    List<Thread> threads = new ArrayList<>();
    List<Exception> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      Thread th = new Thread(() -> {
        try {
          while (System.currentTimeMillis() < end) {
            op.run(ThreadLocalRandom.current().nextInt(KEYS));
            count.incrementAndGet();
          }
        } catch (Exception e) {
          errors.add(e);
        }
      });
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join();
    }
    if (!errors.isEmpty()) {
      throw errors.get(0);
    }
    return count.get();
  }
}

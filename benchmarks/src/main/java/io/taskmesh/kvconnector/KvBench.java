package io.taskmesh.kvconnector;

import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * On-demand benchmark (not a test): kv GET and conditional PUT over the Unix socket against the
 * same statements straight through pgjdbc, same Postgres, same run, same client threads. The socket
 * is measured with {@link UnixHttpClient} (JDK SocketChannel, keep-alive pool; what mesh-api uses)
 * and, with the connector in this JVM, also with Jetty's HttpClient on the TCPUnix transport (the
 * previous client). The connector runs as {@link BenchConnector} says (its own JVM by default).
 * Each op runs once per round, rounds interleaved, and the median of the rounds is reported, so
 * that load from other processes on the machine hits every op alike. {@code -DconnectorJvmB} starts
 * a second connector with other JVM options and measures its ops in the same rounds, named with a "
 * [B]" suffix: the way to compare two settings here, where the direct baseline moves by a quarter
 * from one run to the next.
 *
 * <pre>
 * mvn -B -o -q -pl benchmarks -am test-compile
 * CP="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
 * java -Dthreads=8 [-Drounds=3] [-DrunMs=10000] [-DpreMs=1000] [-DwarmupMs=10000] [-Djetty=false] [-Dconnector=inproc]
 *   [-DconnectorJvm="JVM options"] [-DconnectorJvmB="JVM options"] -cp "$CP" io.taskmesh.kvconnector.KvBench
 * </pre>
 */
public final class KvBench {
  interface Op {
    void run(int key) throws Exception;
  }

  static final int KEYS = 1000;
  static final String VALUE =
      "{\"status\":\"pending\",\"n\":1,\"data\":{\"actor\":\"echo\",\"progress\":0}}";
  static final int THREADS = Integer.getInteger("threads", 8);
  static final int ROUNDS = Integer.getInteger("rounds", 3);

  /**
   * Each op runs this long before the rounds: the connector's JVM starts cold, and its first 2 s
   * ran at a third of its speed.
   */
  static final long WARMUP_MS = Long.getLong("warmupMs", 10000);

  static final long RUN_MS = Long.getLong("runMs", 10000);

  /**
   * Each measured window is preceded by this much of the same op, unmeasured: switching ops makes
   * the JIT recompile (the event loops' code is deoptimized while they sit idle), and with short
   * windows that burst of C2 work (up to 30% of the CPU for ~0.7 s) landed in the connector's
   * windows more than in the direct ones.
   */
  static final long PRE_MS = Long.getLong("preMs", 1000);

  static final boolean JETTY = Boolean.parseBoolean(System.getProperty("jetty", "true"));
  static final int POOL = Integer.getInteger("pool", 8);
  static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean)
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();

  public static void main(String[] args) throws Exception {
    try (BenchSetup setup = BenchSetup.start(THREADS)) {
      Map<String, Op> ops = setup.ops(JETTY);
      String only = System.getProperty("only");
      if (only != null) {
        ops.keySet().removeIf(n -> !n.contains(only) && !n.startsWith("direct"));
      }
      for (Op op : ops.values()) {
        run(op, WARMUP_MS);
      }
      Map<String, double[]> results = new LinkedHashMap<>();
      Map<String, double[]> cpu = new LinkedHashMap<>();
      Map<String, double[]> pgCpu = new LinkedHashMap<>();
      Map<String, double[]> busyPct = new LinkedHashMap<>();
      ops.keySet().forEach(n -> cpu.put(n, new double[ROUNDS]));
      ops.keySet().forEach(n -> results.put(n, new double[ROUNDS]));
      for (int round = 0; round < ROUNDS; round++) {
        for (Map.Entry<String, Op> e : ops.entrySet()) {
          run(e.getValue(), PRE_MS);
          BenchConnector owner = setup.connectorOf(e.getKey());
          long cpu0 = OS.getProcessCpuTime() + owner.processCpuNanos();
          long loop0 = owner.eventLoopCpuNanos();
          long pg0 = postgresCpuTicks();
          long[] machine0 = ProcStat.machineTicks();
          long n = run(e.getValue(), RUN_MS);
          long[] machine1 = ProcStat.machineTicks();
          // how busy both cores were: near 100% the op is bound by CPU work, well below by waiting
          double busy =
              100.0 * (machine1[0] - machine0[0]) / Math.max(1, machine1[1] - machine0[1]);
          busyPct.computeIfAbsent(e.getKey(), x -> new double[ROUNDS])[round] = busy;
          double cpuUs =
              (OS.getProcessCpuTime() + owner.processCpuNanos() - cpu0) / 1000.0 / Math.max(1, n);
          double loopUs = (owner.eventLoopCpuNanos() - loop0) / 1000.0 / Math.max(1, n);
          double pgUs =
              (postgresCpuTicks() - pg0) * (ProcStat.NANOS_PER_TICK / 1000.0) / Math.max(1, n);
          pgCpu.computeIfAbsent(e.getKey(), x -> new double[ROUNDS])[round] = pgUs;
          double perSec = n * 1000.0 / RUN_MS;
          results.get(e.getKey())[round] = perSec;
          cpu.get(e.getKey())[round] = cpuUs;
          System.out.printf(
              "round %d  %-44s %9.0f ops/s  %6.1f us JVM CPU/op (%5.1f of it the connector's event loops)  %6.1f us Postgres CPU/op  machine %3.0f%% busy%n",
              round + 1, e.getKey(), perSec, cpuUs, loopUs, pgUs, busy);
        }
      }
      System.out.printf(
          "%nmedian of %d rounds of %d ms (each after %d ms of the same op), %d client threads, connector pool %d:%n",
          ROUNDS, RUN_MS, PRE_MS, THREADS, POOL);
      double directGet = median(results.get("direct pgjdbc GET (SELECT by key)"));
      double directPut = median(results.get("direct pgjdbc conditional UPDATE"));
      for (Map.Entry<String, double[]> e : results.entrySet()) {
        double m = median(e.getValue());
        double base = e.getKey().contains("GET") ? directGet : directPut;
        System.out.printf(
            "%-44s %9.0f ops/s  %.2fx direct  %6.1f us JVM CPU/op (client+connector)  %6.1f us Postgres CPU/op  machine %3.0f%% busy%n",
            e.getKey(),
            m,
            m / base,
            median(cpu.get(e.getKey())),
            median(pgCpu.get(e.getKey())),
            median(busyPct.get(e.getKey())));
      }
      // each round's ratio against the direct op of the same round: load that comes and goes on
      // the machine over a run (the direct GET moved between 33k and 52k/s within one run) hits
      // both sides of a pair alike
      System.out.printf("%nmedian of the per-round ratios (op / direct op of the same round):%n");
      double[] directGets = results.get("direct pgjdbc GET (SELECT by key)");
      double[] directPuts = results.get("direct pgjdbc conditional UPDATE");
      for (Map.Entry<String, double[]> e : results.entrySet()) {
        if (e.getKey().startsWith("direct")) {
          continue;
        }
        double[] base = e.getKey().contains("GET") ? directGets : directPuts;
        double[] ratios = new double[ROUNDS];
        for (int round = 0; round < ROUNDS; round++) {
          ratios[round] = e.getValue()[round] / base[round];
        }
        System.out.printf(
            "%-44s %.2fx  (rounds: %s)%n",
            e.getKey(),
            median(ratios),
            Arrays.toString(Arrays.stream(ratios).map(x -> Math.round(x * 100) / 100.0).toArray()));
      }
      System.out.printf("UnixHttpClient connections opened: %d%n", setup.unix.connectionsOpened());
      if (setup.kv.fixture() != null) {
        System.out.printf(
            "GETs per round trip to Postgres (batched): %.2f%n",
            (double) KeyStatements.readsSent()
                / Math.max(1.0, (double) KeyStatements.readRoundTrips()));
      }
    }
    System.exit(0);
  }

  /**
   * Direct GET, kv GET, direct conditional UPDATE, kv PUT ?if_status; with the connector in this
   * JVM and if asked, also through Jetty's client.
   */
  static Map<String, Op> ops(
      BenchConnector connector, UnixHttpClient unix, HikariDataSource ds, boolean jetty) {
    KvFixture kv = connector.fixture();
    jetty = jetty && kv != null;
    String value = VALUE;
    byte[] valueBytes = value.getBytes(StandardCharsets.UTF_8);
    Map<String, Op> ops = new LinkedHashMap<>();
    ops.put(
        "direct pgjdbc GET (SELECT by key)",
        k -> {
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement(
                      "SELECT key, value::text, created_at, updated_at FROM kv WHERE key = ?")) {
            ps.setString(1, "bench:" + k);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              rs.getString(2);
            }
          }
        });
    ops.put(
        "kv socket GET, UnixHttpClient",
        k -> check(unix.send("GET", "/keys/bench:" + k, null, null), 200));
    if (jetty) {
      ops.put("kv socket GET, Jetty HttpClient", k -> check(kv.http.get("/keys/bench:" + k), 200));
    }
    ops.put(
        "direct pgjdbc conditional UPDATE",
        k -> {
          try (Connection c = ds.getConnection();
              PreparedStatement ps =
                  c.prepareStatement(
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
    ops.put(
        "kv socket PUT ?if_status, UnixHttpClient",
        k ->
            check(
                unix.send("PUT", "/keys/bench:" + k + "?if_status=pending", null, valueBytes),
                200));
    if (jetty) {
      ops.put(
          "kv socket PUT ?if_status, Jetty HttpClient",
          k -> check(kv.http.put("/keys/bench:" + k + "?if_status=pending", value), 200));
    }
    return ops;
  }

  /** utime + stime of every process named postgres, in clock ticks (1/100 s on Linux). */
  static long postgresCpuTicks() {
    long ticks = 0;
    java.io.File[] procs =
        new java.io.File("/proc").listFiles((d, name) -> name.chars().allMatch(Character::isDigit));
    for (java.io.File p : procs == null ? new java.io.File[0] : procs) {
      ticks +=
          ProcStat.read(p.toPath().resolve("stat"))
              .filter(st -> st.name().equals("postgres"))
              .map(ProcStat::cpuTicks)
              .orElse(0L);
    }
    return ticks;
  }

  static double median(double[] xs) {
    double[] s = xs.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  static void check(HttpResponse r, int status) {
    if (r.status() != status) {
      throw new IllegalStateException(r.status() + " " + r.bodyString());
    }
  }

  static void check(UnixHttp.Resp r, int status) {
    if (r.status() != status) {
      throw new IllegalStateException(r.status() + " " + r.body());
    }
  }

  static long run(Op op, long millis) throws Exception {
    return run(op, millis, THREADS);
  }

  /**
   * Runs {@code op} on {@code threadCount} threads, each back to back for {@code millis}; the ops
   * done.
   */
  static long run(Op op, long millis, int threadCount) throws Exception {
    AtomicLong count = new AtomicLong();
    long end = System.currentTimeMillis() + millis;
    List<Thread> threads = new ArrayList<>();
    List<Exception> errors = new CopyOnWriteArrayList<>();
    for (int t = 0; t < threadCount; t++) {
      Thread th =
          new Thread(
              () -> {
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

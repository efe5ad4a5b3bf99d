package io.taskmesh.kvconnector;

import io.taskmesh.devkit.ChildJvm;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The connector a benchmark measures, on a fresh database of the shared Postgres: in a JVM of its
 * own started as a plain {@code java ... io.taskmesh.kvconnector.Main} runs it (the JVM's default
 * settings, as {@code ./taskmesh kv-connector} starts it), or, with {@code -Dconnector=inproc}, in
 * the benchmark's JVM ({@link KvFixture}).
 *
 * <p>Why its own JVM by default: in one JVM the JIT compiles the connector's code and the direct
 * pgjdbc path's side by side, and every switch between them in a benchmark deoptimizes and
 * recompiles shared code (a profile of an in-process run had the C2 compiler threads at a fifth of
 * the JVM's CPU samples); and the connector's CPU could only be told from the client's by thread
 * names. Deployed, the connector is its own process; so it is here.
 */
abstract class BenchConnector implements AutoCloseable {
  /** Where the connector listens. */
  abstract Path socket();

  /** Its database (the direct ops use the same one). */
  abstract String jdbcUrl();

  /**
   * CPU of the connector's process, user + system; 0 when it runs in this JVM (counted with it).
   */
  abstract long processCpuNanos();

  /** CPU of the connector's event-loop threads, user + system. */
  abstract long eventLoopCpuNanos();

  /**
   * The in-process fixture, for what only it offers (Jetty's client, the batching switch); null
   * otherwise.
   */
  abstract KvFixture fixture();

  /** Which kind it is, for the report. */
  abstract String describe();

  @Override
  public abstract void close();

  static BenchConnector start(Map<String, String> env) throws Exception {
    return "inproc".equals(System.getProperty("connector", "process"))
        ? new InProcess(KvFixture.start(env))
        : OwnJvm.start(env, System.getProperty("connectorJvm", ""));
  }

  /** The connector in this JVM. */
  static final class InProcess extends BenchConnector {
    private final KvFixture kv;

    InProcess(KvFixture kv) {
      this.kv = kv;
    }

    @Override
    Path socket() {
      return kv.config.socket();
    }

    @Override
    String jdbcUrl() {
      return kv.jdbcUrl;
    }

    @Override
    long processCpuNanos() {
      return 0;
    }

    @Override
    long eventLoopCpuNanos() {
      java.lang.management.ThreadMXBean mx =
          java.lang.management.ManagementFactory.getThreadMXBean();
      long sum = 0;
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        if (t.getName().startsWith("vert.x-eventloop-thread")) {
          sum += Math.max(0, mx.getThreadCpuTime(t.getId()));
        }
      }
      return sum;
    }

    @Override
    KvFixture fixture() {
      return kv;
    }

    @Override
    String describe() {
      return "in the benchmark's JVM";
    }

    @Override
    public void close() {
      try {
        kv.close();
      } catch (Exception e) {
        throw new IllegalStateException("the in-process connector did not close", e);
      }
    }
  }

  /** The connector's Main in a child JVM with the JVM's defaults. */
  static final class OwnJvm extends BenchConnector {
    private final ChildJvm jvm;
    private final Path socket;
    private final String jdbcUrl;

    /** The JVM options it was started with, for the report. */
    private final List<String> options;

    private OwnJvm(ChildJvm jvm, List<String> options, Path socket, String jdbcUrl) {
      this.jvm = jvm;
      this.options = options;
      this.socket = socket;
      this.jdbcUrl = jdbcUrl;
    }

    /**
     * {@code options}: JVM options, space-separated (a profiler agent, another GC...); empty: the
     * JVM's defaults.
     */
    static OwnJvm start(Map<String, String> extraEnv, String options) throws Exception {
      String jdbc = KvFixture.freshDatabase();
      Path dir = Files.createTempDirectory("kvc");
      Path socket = dir.resolve("kv.sock");
      Map<String, String> env = new java.util.HashMap<>(extraEnv);
      env.put("CONNECTOR_SOCKET", socket.toString());
      env.put("STATE_PROXY_PG_URL", jdbc);
      List<String> jvmOptions =
          options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
      ChildJvm jvm =
          ChildJvm.start(
              "io.taskmesh.kvconnector.Main", jvmOptions, env, dir.resolve("kv-connector.log"));
      try {
        jvm.awaitLine(l -> l.startsWith("kv-connector: ready on"), 60, TimeUnit.SECONDS);
      } catch (RuntimeException e) {
        jvm.close();
        throw e;
      }
      return new OwnJvm(jvm, jvmOptions, socket, jdbc);
    }

    @Override
    Path socket() {
      return socket;
    }

    @Override
    String jdbcUrl() {
      return jdbcUrl;
    }

    @Override
    long processCpuNanos() {
      return ProcStat.read(Path.of("/proc", String.valueOf(jvm.pid()), "stat"))
              .map(ProcStat::cpuTicks)
              .orElse(0L)
          * ProcStat.NANOS_PER_TICK;
    }

    @Override
    long eventLoopCpuNanos() {
      long sum = 0;
      try (var tasks = Files.list(Path.of("/proc", String.valueOf(jvm.pid()), "task"))) {
        for (Path t : (Iterable<Path>) tasks::iterator) {
          // comm is cut at 15 characters: "vert.x-eventloo"
          sum +=
              ProcStat.read(t.resolve("stat"))
                  .filter(st -> st.name().startsWith("vert.x-eventloo"))
                  .map(ProcStat::cpuTicks)
                  .orElse(0L);
        }
      } catch (IOException e) {
        return 0;
      }
      return sum * ProcStat.NANOS_PER_TICK;
    }

    @Override
    KvFixture fixture() {
      return null;
    }

    @Override
    String describe() {
      return "in its own JVM (pid "
          + jvm.pid()
          + (options.isEmpty() ? ", the JVM's defaults)" : ", " + options + ")");
    }

    @Override
    public void close() {
      jvm.close();
    }
  }
}

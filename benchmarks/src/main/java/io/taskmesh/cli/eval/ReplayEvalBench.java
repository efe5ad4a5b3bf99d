package io.taskmesh.cli.eval;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.InvokeResult;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * replay-eval's rate against its baseline from the same run: envelopes replayed per second (reading
 * the spilled envelope, the candidate's {@code /invoke}, pairing, diff, report) at concurrency 8,
 * against raw {@code /invoke} calls at the same concurrency on a runtime of the same handler
 * ({@code text.upper} of runtime/examples). The log is written by this program: N envelopes on the
 * {@code upper} topic of a fresh namespace and, for each, the output the live actor would have
 * produced on {@code reverse}, on a real broker (LocalKafka). Prints both rates, their ratio and
 * the load average before and after: figures taken with a load over 2 are void, and the CPU this
 * JVM and the runtime spent per envelope on each side.
 *
 * <p>Both sides are measured warm: before them, a replay of the first {@code warmup} envelopes and
 * as many raw calls on the raw runtime. Measured cold, the replay (which ran first) paid the JIT
 * for the {@code /invoke} client and the JSON code both sides share, and the raw calls found them
 * compiled. The warm-up is long enough for C2 to take the code run once per envelope (it waits for
 * some thousands of calls): a shorter one leaves the shared code to be compiled during the measured
 * replay again. {@code warmup} 0 measures as before.
 *
 * <p>Args: {@code [envelopes=5000] [concurrency=8] [warmup=min(envelopes, 10000)]}. See
 * benchmarks/README.md for the command.
 */
public final class ReplayEvalBench {
  private ReplayEvalBench() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int concurrency = args.length > 1 ? Integer.parseInt(args[1]) : 8;
    int warmup = args.length > 2 ? Integer.parseInt(args[2]) : Math.min(n, 10_000);
    Path root = Path.of(System.getProperty("taskmesh.root", ".")).toAbsolutePath().normalize();
    String loadBefore = load();
    Path work = Files.createTempDirectory("replay-eval-bench");
    String ns = "bench" + UUID.randomUUID().toString().substring(0, 6);
    try (LocalKafka kafka = LocalKafka.start(work.resolve("kafka"), 0)) {
      String bootstrap = kafka.bootstrapServers();
      List<byte[]> bodies = writeLog(bootstrap, ns, n);

      // CPU from the first envelope done to the last: this JVM, and the runtime's Python; one
      // ticker for the warm-up and the measured replay, so the JIT's code for the first holds
      long[] first = new long[2];
      long[] last = new long[2];
      ReplayEval.Progress cpu =
          (done, total, s) -> {
            if (done == 1) {
              first[0] = jvmCpuNanos();
              first[1] = pythonCpuNanos();
            } else if (done == total) {
              last[0] = jvmCpuNanos();
              last[1] = pythonCpuNanos();
            }
          };
      if (warmup > 0) {
        // a first replay of the first envelopes and as many raw calls (below): the JIT compiles
        // each side's code, and the /invoke client both share, before either is measured
        ReplayEval.run(options(root, bootstrap, ns, warmup, concurrency, work), line -> {}, cpu);
      }
      ReplayEval.Result r =
          ReplayEval.run(
              options(root, bootstrap, ns, Long.MAX_VALUE, concurrency, work), line -> {}, cpu);
      double replayRate = r.summary().total() / seconds(r.replaying());
      long replayed = Math.max(1, r.summary().total() - 1);
      double replayJvm = (last[0] - first[0]) / 1e3 / replayed;
      double replayPy = (last[1] - first[1]) / 1e3 / replayed;

      double[] raw = rawInvokeRate(root, work.resolve("raw"), bodies, concurrency, warmup);
      double rawRate = raw[0];
      System.out.printf(
          Locale.ROOT,
          "replay-eval: %d envelopes (equal %d), concurrency %d, warm-up %d per side%n"
              + "  replayed:    %.0f envelopes/s (replay phase %.2f s; whole run %.2f s)%n"
              + "  raw /invoke: %.0f calls/s%n"
              + "  ratio:       %.2fx (target >= 0.8x)%n"
              + "  CPU per envelope (us): replay JVM %.0f, runtime %.0f; raw JVM %.0f, runtime %.0f%n"
              + "  load before: %s%n  load after:  %s%n",
          r.summary().total(),
          r.summary().count(Summary.Verdict.EQUAL),
          concurrency,
          warmup,
          replayRate,
          seconds(r.replaying()),
          seconds(r.took()),
          rawRate,
          replayRate / rawRate,
          replayJvm,
          replayPy,
          raw[1],
          raw[2],
          loadBefore,
          load());
    } finally {
      Candidate.deleteTree(work);
    }
    System.exit(0);
  }

  private static ReplayEval.Options options(
      Path root, String bootstrap, String ns, long limit, int concurrency, Path work) {
    return new ReplayEval.Options(
        bootstrap,
        ns,
        "upper",
        root.resolve("runtime"),
        root.resolve("runtime/examples"),
        "text.upper",
        e -> true,
        new ActorLog.Earliest(),
        limit,
        concurrency,
        Duration.ofSeconds(30),
        null,
        "python3",
        null,
        work.resolve("evals"),
        null,
        Map.of());
  }

  /** N envelopes at upper and the live outputs at reverse; the invoke bodies for the baseline. */
  private static List<byte[]> writeLog(String bootstrap, String ns, int n) throws Exception {
    String upper = Topics.actorQueue(ns, "upper");
    String reverse = Topics.actorQueue(ns, "reverse");
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, (Object) bootstrap))) {
      admin
          .createTopics(
              List.of(new NewTopic(upper, 6, (short) 1), new NewTopic(reverse, 6, (short) 1)))
          .all()
          .get();
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    List<byte[]> bodies = new ArrayList<>();
    String now = Instant.now().toString();
    try (KafkaProducer<String, byte[]> producer =
        new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < n; i++) {
        String id = UUID.randomUUID().toString();
        String text = "envelope " + i + " of the replay benchmark";
        ObjectNode payload = Json.MAPPER.createObjectNode().put("text", text);
        Envelope in =
            new Envelope(
                id,
                null,
                new Route(List.of(), "upper", List.of("reverse", "count")),
                EnvelopeStatus.pending("gateway", 0, now, null),
                payload,
                Map.of());
        producer.send(new ProducerRecord<>(upper, id, Json.bytes(in)));
        bodies.add(RuntimeClient.invokeBody(in));
        ObjectNode shouted =
            Json.MAPPER.createObjectNode().put("text", text.toUpperCase(Locale.ROOT));
        shouted.putArray("steps").add("upper");
        Envelope out =
            new Envelope(
                id,
                null,
                new Route(List.of("upper"), "reverse", List.of("count")),
                new EnvelopeStatus(
                    EnvelopePhase.PROCESSING, "upper", 1, 1, now, now, null, null, null),
                shouted,
                Map.of());
        producer.send(new ProducerRecord<>(reverse, id, Json.bytes(out)));
      }
      producer.flush();
    }
    return bodies;
  }

  /**
   * The calls per second, and this JVM's and the runtime's CPU per call in microseconds; the first
   * {@code warmup} bodies are sent once before the measured calls.
   */
  private static double[] rawInvokeRate(
      Path root, Path dir, List<byte[]> bodies, int concurrency, int warmup) throws Exception {
    try (RuntimeProcess rt =
            RuntimeProcess.startReady(
                root.resolve("runtime"),
                root.resolve("runtime/examples"),
                "text.upper",
                dir,
                Map.of("SVC_LOG_LEVEL", "WARNING"),
                Duration.ofSeconds(60));
        RuntimeClient client = new RuntimeClient(rt.socketPath())) {
      ExecutorService pool = Executors.newFixedThreadPool(concurrency);
      try {
        calls(client, bodies.subList(0, Math.min(warmup, bodies.size())), concurrency, pool);
        long t0 = System.nanoTime();
        long jvm0 = jvmCpuNanos();
        long py0 = pythonCpuNanos();
        int failed = calls(client, bodies, concurrency, pool);
        double rate = bodies.size() / ((System.nanoTime() - t0) / 1e9);
        double jvm = (jvmCpuNanos() - jvm0) / 1e3 / bodies.size();
        double py = (pythonCpuNanos() - py0) / 1e3 / bodies.size();
        if (failed > 0) {
          System.out.println("raw /invoke: " + failed + " calls failed");
        }
        return new double[] {rate, jvm, py};
      } finally {
        pool.shutdown();
      }
    }
  }

  /** {@code bodies} through {@code /invoke} on {@code concurrency} workers; the failed calls. */
  private static int calls(
      RuntimeClient client, List<byte[]> bodies, int concurrency, ExecutorService pool)
      throws Exception {
    AtomicInteger next = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    List<Future<?>> workers = new ArrayList<>();
    for (int w = 0; w < concurrency; w++) {
      workers.add(
          pool.submit(
              () -> {
                for (int i = next.getAndIncrement();
                    i < bodies.size();
                    i = next.getAndIncrement()) {
                  InvokeResult r = client.invoke(bodies.get(i), Duration.ofSeconds(30), fly -> {});
                  if (!(r instanceof InvokeResult.Frames)) {
                    failed.incrementAndGet();
                  }
                }
              }));
    }
    for (Future<?> f : workers) {
      f.get();
    }
    return failed.get();
  }

  private static long jvmCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** User and system CPU of this JVM's Python children (the runtimes), from /proc. */
  private static long pythonCpuNanos() {
    long ticks = 0;
    for (ProcessHandle p : ProcessHandle.current().descendants().toList()) {
      if (!p.info().command().orElse("").contains("python")) {
        continue;
      }
      try {
        String stat = Files.readString(Path.of("/proc/" + p.pid() + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      } catch (java.io.IOException | RuntimeException gone) {
        // ended meanwhile
      }
    }
    return ticks * 10_000_000L; // USER_HZ 100
  }

  private static double seconds(Duration d) {
    return d.toNanos() / 1e9;
  }

  private static String load() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).strip();
    } catch (java.io.IOException e) {
      return "(unknown)";
    }
  }
}

package io.taskmesh.sidecar;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.ValueAtPercentile;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Benchmarks of issue 4 item 7, each beside its baseline from the same run (not a test; see the
 * README for the command). Real broker (LocalKafka, or {@code KAFKA_BOOTSTRAP_SERVERS}), real
 * Python runtimes; no gateway reports, or with {@code -Dreports=true} every sidecar reports to a
 * real local HTTP server ({@link GatewayRecorder}) and waits for its reports before each commit.
 *
 * <ol>
 *   <li>envelopes/s through one actor (trivial echo handler) vs raw {@code /invoke} round trips
 *       over the same Unix socket to the same runtime (same HTTP client code, one connection per
 *       call);
 *   <li>tasks/s end to end through upper -> reverse -> count (runtime/examples/text.py) to x-sink;
 *   <li>latency per hop p50/p99 with one task in flight (record timestamps of consecutive topics)
 *       vs the raw round trip of that hop's runtime;
 *   <li>the exactly-once floor of the same hops with plain Kafka clients ({@link EosHopFloor}), and
 *       the sidecar's added latency as a multiple of it.
 * </ol>
 *
 * Args: {@code [envelopes=3000] [tasks=2000] [latencyTasks=200]}.
 */
public final class SidecarBench {
  private final String bootstrap;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final KafkaProducer<String, byte[]> producer;

  /**
   * For one task in flight: no linger, or the first hop would include the 5 ms the throughput
   * producer waits to fill a batch (the record timestamp is taken when send is called).
   */
  private final KafkaProducer<String, byte[]> latencyProducer;

  /**
   * {@code -Dreports=}: {@code false} (none), {@code true} (HTTP to a local recorder) or {@code
   * kafka} (progress events into a task event log topic named by the envelope header).
   */
  private static final String REPORT_MODE = System.getProperty("reports", "false");

  private static final boolean REPORTS = "true".equals(REPORT_MODE);
  private static final boolean EVENT_LOG = "kafka".equals(REPORT_MODE);
  private final String eventLog = "bench-task-events-" + UUID.randomUUID();
  private final GatewayRecorder gateway;
  private final GatewayReporter reporter;

  /** Per hop of the three-actor flow: p50 and p99 added by sidecar + Kafka (hop minus raw). */
  private final List<double[]> added = new ArrayList<>();

  private SidecarBench(String bootstrap) {
    this.bootstrap = bootstrap;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    latencyProducer = new KafkaProducer<>(p);
    gateway = REPORTS ? new GatewayRecorder() : null;
    reporter = new GatewayReporter(REPORTS ? gateway.url() : null);
  }

  public static void main(String[] args) throws Exception {
    int envelopes = args.length > 0 ? Integer.parseInt(args[0]) : 3000;
    int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int latencyTasks = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    String bootstrap = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    if (bootstrap == null) {
      bootstrap = LocalKafka.shared().bootstrapServers();
    }
    // the JDK HttpServer writes headers and body apart: with Nagle each answer waits for a delayed
    // ACK
    System.setProperty("sun.net.httpserver.nodelay", "true");
    System.out.printf(
        "sidecar bench: %d cores, java %s, broker %s, gateway reports %s%n",
        Runtime.getRuntime().availableProcessors(),
        System.getProperty("java.version"),
        bootstrap,
        REPORTS ? "on (HTTP)" : EVENT_LOG ? "on (task event log in the transaction)" : "off");
    // medians of the step timers for the bench only (the exported metric has buckets): one window
    // long enough to hold the whole run, so they are the medians over all of an actor's batches
    ServiceMetrics.registry()
        .config()
        .meterFilter(
            new MeterFilter() {
              @Override
              public DistributionStatisticConfig configure(
                  Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals("taskmesh.actor.batch.step.duration")) {
                  return config;
                }
                return DistributionStatisticConfig.builder()
                    .percentiles(0.5)
                    .percentilePrecision(2)
                    .expiry(Duration.ofHours(1))
                    .bufferLength(1)
                    .build()
                    .merge(config);
              }
            });
    SidecarBench b = new SidecarBench(bootstrap);
    try {
      // the floor runs first too: it warms the broker's transaction paths (a fresh LocalKafka is
      // slower for its first minute) and shows how much the floor drifts during the run
      b.floorBefore = b.floor(latencyTasks, "before the sidecar parts");
      b.oneActor(envelopes);
      b.threeActors(tasks, latencyTasks);
      b.eosFloor(latencyTasks);
      if (EVENT_LOG) {
        System.out.printf(
            "%n   progress events written to the task event log: %d%n", b.count(b.eventLog));
      }
    } finally {
      b.close();
    }
    System.exit(0);
  }

  // --- 1: one actor vs raw round trips ---------------------------------------------------------

  private void oneActor(int n) throws Exception {
    String ns = "bench" + UUID.randomUUID().toString().substring(0, 6);
    RuntimeProcess rt = runtime(TestMesh.handlersDir(), "testhandlers.echo");
    // baseline: the same runtime, the same socket, the same client, no Kafka
    RuntimeClient raw = new RuntimeClient(rt.socketPath());
    closing.add(0, raw);
    byte[] body = RuntimeClient.invokeBody(envelope("raw", Map.of("i", 0), "echo"));
    for (int i = 0; i < 300; i++) { // warm-up
      raw.invoke(body, Duration.ofSeconds(10), f -> {});
    }
    long[] rawNanos = new long[n];
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      long s = System.nanoTime();
      InvokeResult r = raw.invoke(body, Duration.ofSeconds(10), f -> {});
      rawNanos[i] = System.nanoTime() - s;
      if (!(r instanceof InvokeResult.Frames)) {
        throw new IllegalStateException("raw call failed: " + r);
      }
    }
    double rawPerSec = n / seconds(System.nanoTime() - t0);

    SidecarConfig cfg = SidecarConfig.of(bootstrap, ns, "echo", rt.socketDir(), null);
    sidecar(rt, cfg);
    String sink = Topics.actorQueue(ns, Topics.SINK);
    try (Arrivals arrivals = new Arrivals(sink)) {
      send(
          envelope("warm", Map.of("i", -1), "echo"),
          ns); // group joined and runtime warm before timing
      arrivals.await(1, Duration.ofSeconds(60));
      Map<String, double[]> before = steps("echo");
      long start = System.nanoTime();
      for (int i = 0; i < n; i++) {
        sendAsync(envelope("e" + i, Map.of("i", i), "echo"), ns);
      }
      producer.flush();
      long end = arrivals.await(n + 1, Duration.ofMinutes(5));
      Map<String, double[]> after = steps("echo");
      double perSec = n / seconds(end - start);
      System.out.printf(
          "%n1. one actor, trivial handler (testhandlers.echo), %d envelopes, 1 partition, concurrency 1%n",
          n);
      System.out.printf(
          "   raw /invoke round trips (same socket, same runtime, no Kafka): %8.0f calls/s  p50 %.2f ms  p99 %.2f ms%n",
          rawPerSec, pct(rawNanos, 50), pct(rawNanos, 99));
      System.out.printf(
          "   through the sidecar (Kafka in -> runtime -> x-sink topic):      %8.0f envelopes/s  = %.2f x raw%n",
          perSec, perSec / rawPerSec);
      printSteps("echo", before, after);
    }
  }

  // --- 2 and 3: the three-actor example flow ---------------------------------------------------

  private void threeActors(int tasks, int latencyTasks) throws Exception {
    String ns = "bench" + UUID.randomUUID().toString().substring(0, 6);
    Path examples = TestMesh.repoRoot().resolve("runtime/examples");
    List<String> actors = List.of("upper", "reverse", "count");
    Map<String, RuntimeProcess> runtimes = new HashMap<>();
    for (String a : actors) {
      RuntimeProcess rt = runtime(examples, "text." + a);
      runtimes.put(a, rt);
      sidecar(rt, SidecarConfig.of(bootstrap, ns, a, rt.socketDir(), null));
    }
    String sink = Topics.actorQueue(ns, Topics.SINK);
    double perSec;
    Map<String, Map<String, double[]>> marks = new LinkedHashMap<>();
    try (Arrivals arrivals = new Arrivals(sink)) {
      send(envelope("warm", Map.of("text", "warm"), actors.toArray(String[]::new)), ns);
      arrivals.await(1, Duration.ofSeconds(60));
      long start = System.nanoTime();
      for (int i = 0; i < tasks; i++) {
        sendAsync(
            envelope("t" + i, Map.of("text", "hello world " + i), actors.toArray(String[]::new)),
            ns);
      }
      producer.flush();
      long end = arrivals.await(tasks + 1, Duration.ofMinutes(5));
      perSec = tasks / seconds(end - start);

      // latency: one task in flight at a time
      actors.forEach(a -> marks.put(a, steps(a)));
      for (int i = 0; i < latencyTasks; i++) {
        send(envelope("l" + i, Map.of("text", "latency " + i), actors.toArray(String[]::new)), ns);
        arrivals.await(tasks + 2 + i, Duration.ofSeconds(60));
      }
    }
    // hop k = record timestamp on the next topic minus record timestamp on actor k's topic
    Map<String, Long> tUpper = timestamps(Topics.actorQueue(ns, "upper"));
    Map<String, Long> tReverse = timestamps(Topics.actorQueue(ns, "reverse"));
    Map<String, Long> tCount = timestamps(Topics.actorQueue(ns, "count"));
    Map<String, Long> tSink = timestamps(sink);
    List<Map<String, Long>> chain = List.of(tUpper, tReverse, tCount, tSink);
    System.out.printf(
        "%n2. three-actor flow upper -> reverse -> count (runtime/examples/text.py) to x-sink, %d tasks%n",
        tasks);
    System.out.printf(
        "   end to end: %.0f tasks/s (= %.0f actor calls/s; one-actor result above is the per-actor ceiling)%n",
        perSec, perSec * 3);
    System.out.printf(
        "%n3. latency per hop, one task in flight, %d tasks (record timestamps: enqueued for the actor -> enqueued for the next)%n",
        latencyTasks);
    long[] e2e = new long[latencyTasks];
    for (int h = 0; h < 3; h++) {
      long[] hop = new long[latencyTasks];
      for (int i = 0; i < latencyTasks; i++) {
        String id = "l" + i;
        hop[i] = (chain.get(h + 1).get(id) - chain.get(h).get(id)) * 1_000_000L;
        e2e[i] += hop[i];
      }
      long[] rawHop = rawRoundTrips(runtimes.get(actors.get(h)), actors.get(h), 500);
      System.out.printf(
          "   hop %-7s p50 %6.2f ms  p99 %6.2f ms | raw /invoke of that runtime p50 %5.2f ms p99 %5.2f ms | added by sidecar+Kafka p50 %6.2f ms p99 %6.2f ms%n",
          actors.get(h),
          pct(hop, 50),
          pct(hop, 99),
          pct(rawHop, 50),
          pct(rawHop, 99),
          pct(hop, 50) - pct(rawHop, 50),
          pct(hop, 99) - pct(rawHop, 99));
      added.add(new double[] {pct(hop, 50) - pct(rawHop, 50), pct(hop, 99) - pct(rawHop, 99)});
    }
    System.out.printf(
        "   whole flow      p50 %6.2f ms  p99 %6.2f ms%n", pct(e2e, 50), pct(e2e, 99));
    System.out.println("   where a batch's time went in the latency part (ActorLoop step timers):");
    actors.forEach(a -> printSteps(a, marks.get(a), steps(a)));
  }

  // --- 4: the exactly-once floor ---------------------------------------------------------------

  private List<long[]> floorBefore;

  private List<long[]> floor(int n, String when) throws Exception {
    System.out.printf(
        "%n4. exactly-once floor, %s: plain Kafka clients, read_committed consumer +"
            + " transactional producer, send + sendOffsetsToTransaction + commitTransaction per"
            + " record, one in flight, %d records, no sidecar, no runtime (transaction.version"
            + " %s)%n",
        when, n, EosHopFloor.transactionVersion(bootstrap));
    EosHopFloor floor = new EosHopFloor(bootstrap);
    List<long[]> hops = floor.run(n);
    floor.print(n);
    return hops;
  }

  /**
   * The same hops with plain Kafka clients and nothing else ({@link EosHopFloor}): what
   * exactly-once routing costs on this broker, whatever the sidecar does. The sidecar's added
   * latency per hop is printed against the floor hop with the same kind of input (plain for upper,
   * transactional for reverse and count).
   */
  private void eosFloor(int n) throws Exception {
    List<long[]> after = floor(n, "after the sidecar parts");
    List<String> actors = List.of("upper", "reverse", "count");
    System.out.println(
        "   the sidecar's added latency against the floor (the lower p50 and p99 of the two floor runs):");
    for (int h = 0; h < after.size(); h++) {
      double f50 = Math.min(pct(after.get(h), 50), pct(floorBefore.get(h), 50));
      double f99 = Math.min(pct(after.get(h), 99), pct(floorBefore.get(h), 99));
      System.out.printf(
          "   hop %-7s added by sidecar p50 %6.2f ms = %4.1f x floor (%5.2f ms), p99 %6.2f ms ="
              + " %4.1f x floor (%6.2f ms); above the floor p50 %6.2f ms%n",
          actors.get(h),
          added.get(h)[0],
          added.get(h)[0] / Math.max(f50, 0.5),
          f50,
          added.get(h)[1],
          added.get(h)[1] / Math.max(f99, 0.5),
          f99,
          added.get(h)[0] - f50);
    }
  }

  // --- step timers of the sidecars in this JVM ---------------------------------------------------

  /**
   * Count and total milliseconds of each batch step timer of {@code actor}, and the batch sizes.
   */
  private static Map<String, double[]> steps(String actor) {
    Map<String, double[]> out = new TreeMap<>();
    for (Timer t :
        ServiceMetrics.registry()
            .find("taskmesh.actor.batch.step.duration")
            .tag("actor", actor)
            .timers()) {
      ValueAtPercentile[] p = t.takeSnapshot().percentileValues();
      out.put(
          t.getId().getTag("step"),
          new double[] {
            t.count(),
            t.totalTime(TimeUnit.MILLISECONDS),
            p.length == 0 ? Double.NaN : p[0].value(TimeUnit.MILLISECONDS)
          });
    }
    DistributionSummary size =
        ServiceMetrics.registry().find("taskmesh.actor.batch.size").tag("actor", actor).summary();
    if (size != null) {
      out.put("#records", new double[] {size.count(), size.totalAmount()});
    }
    for (Timer t :
        ServiceMetrics.registry()
            .find("taskmesh.actor.runtime.call.duration")
            .tag("actor", actor)
            .timers()) {
      double[] sum = out.computeIfAbsent("runtime_call", k -> new double[3]);
      sum[0] += t.count();
      sum[1] += t.totalTime(TimeUnit.MILLISECONDS);
    }
    return out;
  }

  /** Mean per batch of each step between two snapshots, and the mean batch size. */
  private static void printSteps(
      String actor, Map<String, double[]> before, Map<String, double[]> after) {
    StringBuilder line = new StringBuilder();
    double[] b0 = before.getOrDefault("#records", new double[2]);
    double[] b1 = after.getOrDefault("#records", new double[2]);
    double batches = b1[0] - b0[0];
    line.append(
        String.format(
            "   %-7s %.0f batches, %.1f records each; mean ms per batch (p50 over all its batches):",
            actor, batches, batches == 0 ? 0 : (b1[1] - b0[1]) / batches));
    for (String step : List.of("mark", "handle", "before_commit", "send", "offsets", "commit")) {
      double[] s0 = before.getOrDefault(step, new double[2]);
      double[] s1 = after.getOrDefault(step, new double[2]);
      if (s1[0] > s0[0]) {
        line.append(
            String.format(" %s %.2f (p50 %.2f)", step, (s1[1] - s0[1]) / (s1[0] - s0[0]), s1[2]));
      }
    }
    double[] c0 = before.getOrDefault("runtime_call", new double[2]);
    double[] c1 = after.getOrDefault("runtime_call", new double[2]);
    if (c1[0] > c0[0]) {
      line.append(
          String.format(
              "; runtime calls inside handle: mean %.2f ms per envelope",
              (c1[1] - c0[1]) / (c1[0] - c0[0])));
    }
    System.out.println(line);
  }

  private long[] rawRoundTrips(RuntimeProcess rt, String actor, int n) {
    try (RuntimeClient c = new RuntimeClient(rt.socketPath())) {
      byte[] body = RuntimeClient.invokeBody(envelope("raw", Map.of("text", "latency 1"), actor));
      long[] out = new long[n];
      for (int i = 0; i < n; i++) {
        long s = System.nanoTime();
        c.invoke(body, Duration.ofSeconds(10), f -> {});
        out[i] = System.nanoTime() - s;
      }
      return out;
    }
  }

  // --- helpers ---------------------------------------------------------------------------------

  private RuntimeProcess runtime(Path handlerDir, String handler) throws Exception {
    RuntimeProcess rt =
        RuntimeProcess.startReady(
            TestMesh.repoRoot().resolve("runtime"),
            handlerDir,
            handler,
            Files.createTempDirectory("svc-bench"),
            Map.of("SVC_LOG_LEVEL", "WARNING"),
            Duration.ofSeconds(30));
    closing.add(0, rt);
    return rt;
  }

  private void sidecar(RuntimeProcess rt, SidecarConfig cfg) {
    RuntimeClient client = new RuntimeClient(rt.socketPath());
    Sidecar s =
        new Sidecar(
            cfg,
            client,
            reporter,
            status -> {
              throw new IllegalStateException("sidecar exit " + status);
            },
            Duration.ofSeconds(30));
    s.start();
    closing.add(0, client);
    closing.add(0, s);
  }

  private Envelope envelope(String id, Object payload, String... actors) {
    return new Envelope(
        id,
        null,
        Route.start(actors[0], Arrays.asList(actors).subList(1, actors.length)),
        null,
        Json.tree(payload),
        EVENT_LOG ? Map.of(Envelope.TASK_EVENTS_HEADER, eventLog) : Map.of());
  }

  private void send(Envelope e, String ns) throws Exception {
    latencyProducer.send(record(e, ns)).get();
  }

  private void sendAsync(Envelope e, String ns) {
    producer.send(record(e, ns));
  }

  private static ProducerRecord<String, byte[]> record(Envelope e, String ns) {
    return new ProducerRecord<>(Topics.actorQueue(ns, e.route().curr()), e.id(), Json.bytes(e));
  }

  private long count(String topic) {
    long[] n = {0};
    scan(topic, r -> n[0]++);
    return n[0];
  }

  private Map<String, Long> timestamps(String topic) {
    Map<String, Long> out = new HashMap<>();
    scan(topic, r -> out.put(r.key(), r.timestamp()));
    return out;
  }

  private void scan(String topic, Consumer<ConsumerRecord<String, byte[]>> each) {
    try (KafkaConsumer<String, byte[]> c = consumer()) {
      List<TopicPartition> parts =
          c.partitionsFor(topic).stream()
              .map(pi -> new TopicPartition(topic, pi.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      while (parts.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          each.accept(r);
        }
      }
    }
  }

  private KafkaConsumer<String, byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return new KafkaConsumer<>(p);
  }

  /** Counts committed records of a topic as they arrive. */
  private final class Arrivals implements AutoCloseable {
    private final KafkaConsumer<String, byte[]> c = consumer();
    private int count;

    Arrivals(String topic) {
      List<TopicPartition> parts = new ArrayList<>();
      while (parts.isEmpty()) {
        c.partitionsFor(topic).forEach(pi -> parts.add(new TopicPartition(topic, pi.partition())));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
    }

    /**
     * @return System.nanoTime() when the n-th record was seen
     */
    long await(int n, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (count < n) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "only " + count + " of " + n + " records within " + timeout);
        }
        count += c.poll(Duration.ofMillis(5)).count();
      }
      return System.nanoTime();
    }

    @Override
    public void close() {
      c.close();
    }
  }

  private static double seconds(long nanos) {
    return nanos / 1e9;
  }

  private static double pct(long[] nanos, int p) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))] / 1e6;
  }

  private void close() {
    for (AutoCloseable c : closing) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
    reporter.close();
    if (gateway != null) {
      gateway.close();
    }
    producer.close();
    latencyProducer.close();
  }
}

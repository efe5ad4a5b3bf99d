package io.taskmesh.meshapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * On-demand benchmark (not a test): create-to-SSE-terminal latency through the echo actor, all in
 * one JVM except the Python runtime: the shared local Kafka broker and Postgres, a kv-connector on
 * a Unix socket, one mesh-api, the real Python runtime running {@code runtime/examples/echo.py}, a
 * real {@link Sidecar} for actor {@code echo} and a real {@link SinkActor} ({@code x-sink}), both
 * reporting to mesh-api's {@code /mesh/{id}/events} (the envelope carries {@code
 * x-svc-gateway-protocol: events}). One request at a time: {@code POST /mesh/?actor=echo}, then
 * {@code GET /mesh/{id}/events} until the terminal {@code succeeded} event.
 *
 * <p>Baselines from the same run: (1) a raw Kafka round trip (produce acks=all, a consumer already
 * assigned receives it), (2) mesh-api alone: create for an actor nobody consumes, then the terminal
 * status posted straight to {@code /events} (no sidecar), SSE terminal; the same with a blocking
 * client ({@code HttpURLConnection}) instead of the JDK HttpClient. With {@code -Dbreakdown=true}
 * (default) it first times the alone path's three requests one by one and, after each sample, the
 * parts they are made of on their own (HTTP no-op, each connector call, the acks=all produce).
 * Every p50 is also printed as a multiple of the raw Kafka p50, with the load average.
 *
 * <pre>
 * mvn -B -o -q -pl benchmarks -am test-compile
 * CP="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
 * java [-Dn=200] [-Dwarmup=20] [-Dbreakdown=false] -Dtaskmesh.root=$PWD -cp "$CP" io.taskmesh.meshapi.MeshLatencyBench
 * </pre>
 */
public final class MeshLatencyBench {
  static final int N = Integer.getInteger("n", 200);
  static final int WARMUP = Integer.getInteger("warmup", 20);

  /**
   * The alone path's target: its queue exists and nobody consumes it. (Until 2026-11-25 it created
   * for {@code echo}, so the live echo sidecar and x-sink worked on every "alone" envelope at the
   * same time, and raced the bench's own status post.)
   */
  static final String IDLE_ACTOR = "idle";

  static final boolean BREAKDOWN = Boolean.parseBoolean(System.getProperty("breakdown", "true"));

  public static void main(String[] args) throws Exception {
    Path root = Path.of(System.getProperty("taskmesh.root", ".")).toAbsolutePath().normalize();
    String bootstrap = LocalKafka.shared().bootstrapServers();
    // closed in finally, not by try-with-resources: its close() declares Exception, and an
    // interrupt while the bench shuts down needs no handling of its own
    MeshFixture f = new MeshFixture(Map.of(), Map.of());
    try {
      MeshFixture.Replica a = f.a;
      String ns = f.namespace;
      createTopics(
          bootstrap,
          Topics.actorQueue(ns, "echo"),
          Topics.actorQueue(ns, "x-sink"),
          Topics.actorQueue(ns, "x-sump"),
          Topics.actorQueue(ns, IDLE_ACTOR),
          "bench-raw-" + ns);

      Path socketDir = Files.createTempDirectory("meshbench");
      GatewayReporter reporter = new GatewayReporter(null);
      SidecarConfig echoCfg = SidecarConfig.of(bootstrap, ns, "echo", socketDir, null);
      try (RuntimeProcess rt =
              RuntimeProcess.startReady(
                  root.resolve("runtime"),
                  root.resolve("runtime/examples"),
                  "echo.handle",
                  socketDir,
                  Map.of(),
                  Duration.ofSeconds(30));
          RuntimeClient rc = new RuntimeClient(rt.socketPath());
          Sidecar echo =
              new Sidecar(
                  echoCfg,
                  rc,
                  reporter,
                  s -> System.err.println("echo sidecar exit " + s),
                  Duration.ofSeconds(30));
          SinkActor sink =
              new SinkActor(
                  SidecarConfig.of(bootstrap, ns, "x-sink", socketDir, null),
                  reporter,
                  s -> System.err.println("x-sink exit " + s))) {
        echo.start();
        sink.start();

        String rawTopic = "bench-raw-" + ns;
        String load0 = loadAverage();
        try (RawKafka raw = new RawKafka(bootstrap, rawTopic)) {
          Steps steps = BREAKDOWN ? breakdown(f, a, rawTopic) : null;
          String loadSteps = loadAverage();
          // each path interleaved with raw Kafka round trips: same moment, same machine load
          Samples alone = new Samples();
          for (int i = 0; i < WARMUP + N; i++) {
            alone.add("raw", i, raw.roundTrip(i));
            alone.add("alone", i, sample(f, a, false, i));
            alone.add("lean", i, leanSample(a, i));
          }
          String load1 = loadAverage();
          Samples actor = new Samples();
          for (int i = 0; i < WARMUP + N; i++) {
            actor.add("raw", i, raw.roundTrip(WARMUP + N + i));
            actor.add("actor", i, sample(f, a, true, i));
          }
          String load2 = loadAverage();
          System.out.printf(
              "%n%d samples of each path, after %d warm-up; latency in ms; x = p50 / the raw Kafka"
                  + " p50 measured interleaved with it; load average (1, 5, 15 min) at start %s%n",
              N, WARMUP, load0);
          if (steps != null) {
            steps.print(pct(sorted(alone.get("raw")), 50), loadSteps);
          }
          double base = pct(sorted(alone.get("raw")), 50);
          System.out.println("interleaved, one sample of each in turn; load after: " + load1);
          print("raw Kafka produce->consume (baseline)", alone.get("raw"), base, null);
          print(
              "mesh-api alone: create -> POST /events succeeded -> SSE terminal",
              alone.get("alone"),
              base,
              null);
          print("  the same, blocking HttpURLConnection client", alone.get("lean"), base, null);
          double base2 = pct(sorted(actor.get("raw")), 50);
          System.out.println("interleaved, one sample of each in turn; load after: " + load2);
          print("raw Kafka produce->consume (baseline)", actor.get("raw"), base2, null);
          print(
              "create -> echo sidecar -> x-sink -> SSE terminal", actor.get("actor"), base2, null);
        }
      }
      reporter.close();
    } finally {
      f.close();
    }
    System.exit(0);
  }

  /**
   * One create + SSE until terminal; {@code throughActor}: the echo actor ends it, else we post it
   * (the envelope's queue has no consumer).
   */
  static long sample(MeshFixture f, MeshFixture.Replica a, boolean throughActor, int i)
      throws Exception {
    {
      long t0 = System.nanoTime();
      MeshFixture.Resp c =
          f.send(
              "POST",
              a.ext("/api/v1/mesh/?actor=" + (throughActor ? "echo" : IDLE_ACTOR)),
              "{\"payload\":{\"text\":\"hi " + i + "\"}}");
      if (c.status() != 201) {
        throw new IllegalStateException("create answered " + c.status() + ": " + c.body());
      }
      String id = c.body().replaceAll(".*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
      if (!throughActor) {
        MeshFixture.Resp e =
            f.send(
                "POST",
                a.internal("/api/v1/mesh/" + id + "/events"),
                "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"bench\",\"result\":{}}}");
        if (e.status() != 204) {
          throw new IllegalStateException("events answered " + e.status());
        }
      }
      try (SseReader sse = new SseReader(f.http, a.ext("/api/v1/mesh/" + id + "/events"))) {
        while (true) {
          SseReader.Frame fr = sse.next(30);
          if ("status".equals(fr.event()) && fr.data().contains("\"status\":\"succeeded\"")) {
            break;
          }
          if ("status".equals(fr.event())
              && (fr.data().contains("\"failed\"") || fr.data().contains("\"canceled\""))) {
            throw new IllegalStateException("envelope " + id + " ended " + fr.data());
          }
        }
      }
      return System.nanoTime() - t0;
    }
  }

  /** Samples per path name, warm-up left out. */
  static final class Samples {
    final Map<String, List<Long>> byName = new LinkedHashMap<>();

    void add(String name, int i, long nanos) {
      if (i >= WARMUP) {
        byName.computeIfAbsent(name, k -> new ArrayList<>()).add(nanos);
      }
    }

    long[] get(String name) {
      return byName.get(name).stream().mapToLong(Long::longValue).toArray();
    }
  }

  /** Named step durations of one run, printed as p50/p90/p99. */
  static final class Steps {
    final Map<String, List<Long>> byName = new LinkedHashMap<>();

    void time(String name, ThrowingRunnable r) throws Exception {
      long t0 = System.nanoTime();
      r.run();
      byName.computeIfAbsent(name, k -> new ArrayList<>()).add(System.nanoTime() - t0);
    }

    double p50(String name) {
      return pct(sorted(samples(name)), 50);
    }

    long[] samples(String name) {
      return byName.get(name).stream().skip(WARMUP).mapToLong(Long::longValue).toArray();
    }

    void print(double base, String load) {
      System.out.println(
          "breakdown of the alone path: its three requests as the client sees them, then each part"
              + " alone (same client, same connector, same producer); load after: "
              + load);
      byName.keySet().forEach(k -> MeshLatencyBench.print(k, samples(k), base, null));
      // what the path is made of: 3 HTTP exchanges, 4 connector calls (exclusive create, read and
      // conditional write of the status, the SSE's read), 1 acks=all produce
      double model =
          3 * p50(HTTP_NOOP) + p50(KV_CREATE) + 2 * p50(KV_GET) + p50(KV_PUT) + p50(DISPATCH);
      System.out.printf(
          "%-66s p50 %7.2f  %34s %5.1fx%n",
          "  sum of the parts' p50s (3 HTTP + 4 kv + 1 produce)", model, "", model / base);
    }
  }

  static final String HTTP_NOOP = "  HTTP GET /health (JDK HttpClient)";
  static final String KV_CREATE = "  kv PUT If-None-Match: * (create)";
  static final String KV_GET = "  kv GET";
  static final String KV_PUT = "  kv PUT ?if_status";
  static final String DISPATCH = "  Kafka produce, mesh-api's producer (acks=all, idempotent)";

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  /**
   * The alone path again, each of its three requests timed, and after each sample the parts those
   * requests are made of, each on its own.
   */
  static Steps breakdown(MeshFixture f, MeshFixture.Replica a, String rawTopic) throws Exception {
    Steps st = new Steps();
    for (int i = 0; i < WARMUP + N; i++) {
      String[] id = new String[1];
      st.time(
          "1 POST create (kv create + produce)",
          () -> {
            MeshFixture.Resp c =
                f.send(
                    "POST",
                    a.ext("/api/v1/mesh/?actor=" + IDLE_ACTOR),
                    "{\"payload\":{\"text\":\"hi\"}}");
            id[0] = c.body().replaceAll(".*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
          });
      st.time(
          "2 POST /events succeeded (kv GET + kv PUT ?if_status)",
          () ->
              f.send(
                  "POST",
                  a.internal("/api/v1/mesh/" + id[0] + "/events"),
                  "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"b\"}}"));
      st.time(
          "3 GET /events -> terminal event (kv GET)",
          () -> {
            try (SseReader sse =
                new SseReader(f.http, a.ext("/api/v1/mesh/" + id[0] + "/events"))) {
              sse.next(30);
            }
          });
      st.time(HTTP_NOOP, () -> f.send("GET", a.ext("/health"), null));
      st.time("  HTTP GET /health (blocking HttpURLConnection)", () -> urlGet(a.ext("/health")));
      st.time(
          "  HTTP GET /mesh/{id} (JDK HttpClient; kv GET)",
          () -> f.send("GET", a.ext("/api/v1/mesh/" + id[0]), null));
      String stale = "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"b\"}}";
      String staleUrl = a.internal("/api/v1/mesh/" + id[0] + "/events");
      st.time(
          "  POST /events stale (kv GET; JDK HttpClient)", () -> f.send("POST", staleUrl, stale));
      st.time(
          "  POST /events stale (kv GET; JDK HttpClient HTTP/1.1)", () -> send11(staleUrl, stale));
      st.time(
          "  POST /events stale (kv GET; HttpURLConnection)",
          () -> urlSend("POST", staleUrl, stale, 204));
      String key = "bench:" + UUID.randomUUID();
      ObjectNode v = JsonNodeFactory.instance.objectNode().put("status", "pending");
      st.time(KV_CREATE, () -> a.kv.create(key, v));
      st.time(KV_GET, () -> a.kv.get(key));
      st.time(KV_PUT, () -> a.kv.putIfStatus(key, v, "pending"));
      st.time(DISPATCH, () -> a.bus.dispatch(rawTopic, key, new byte[100]));
    }
    return st;
  }

  static final java.net.http.HttpClient HTTP11 =
      java.net.http.HttpClient.newBuilder()
          .version(java.net.http.HttpClient.Version.HTTP_1_1)
          .build();

  static void send11(String url, String body) throws Exception {
    var r =
        HTTP11.send(
            java.net.http.HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 204) {
      throw new IllegalStateException("answered " + r.statusCode());
    }
  }

  static void urlGet(String url) throws Exception {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection) java.net.URI.create(url).toURL().openConnection();
    try (var in = c.getInputStream()) {
      in.readAllBytes();
    }
  }

  /**
   * Raw Kafka round trips: produce (acks=all, linger 0) to partition 0 of a topic, a consumer
   * already assigned to it (read_committed) receives it.
   */
  static final class RawKafka implements AutoCloseable {
    final KafkaProducer<String, String> producer;
    final KafkaConsumer<String, String> consumer;
    final String topic;
    final String value = "{\"id\":\"" + UUID.randomUUID() + "\",\"payload\":{\"text\":\"hi\"}}";

    RawKafka(String bootstrap, String topic) {
      this.topic = topic;
      Properties pp = new Properties();
      pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      pp.put(ProducerConfig.ACKS_CONFIG, "all");
      pp.put(ProducerConfig.LINGER_MS_CONFIG, 0);
      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      producer = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
      consumer = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer());
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToEnd(List.of(tp));
      consumer.position(tp);
    }

    long roundTrip(int i) throws Exception {
      String key = "k" + i;
      long t0 = System.nanoTime();
      producer.send(new ProducerRecord<>(topic, 0, key, value)).get();
      boolean got = false;
      while (!got) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          got |= r.key().equals(key);
        }
      }
      return System.nanoTime() - t0;
    }

    @Override
    public void close() {
      producer.close();
      consumer.close();
    }
  }

  static void createTopics(String bootstrap, String... topics) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      List<NewTopic> nts = new ArrayList<>();
      for (String t : topics) {
        nts.add(new NewTopic(t, 1, (short) 1));
      }
      admin.createTopics(nts).all().get();
    }
  }

  static long[] sorted(long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    return s;
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      return "n/a";
    }
  }

  static void print(String name, long[] nanos, double baseP50, String load) {
    long[] s = sorted(nanos);
    System.out.printf(
        "%-66s p50 %7.2f  p90 %7.2f  p99 %7.2f  max %7.2f  %5.1fx%s%n",
        name,
        pct(s, 50),
        pct(s, 90),
        pct(s, 99),
        s[s.length - 1] / 1e6,
        pct(s, 50) / baseP50,
        load == null ? "" : "  load " + load);
  }

  /**
   * The alone path with a blocking client (the JDK's HttpURLConnection: the calling thread does the
   * I/O, keep-alive), to separate what the JDK HttpClient's own threads add.
   */
  static long leanSample(MeshFixture.Replica a, int i) throws Exception {
    {
      long t0 = System.nanoTime();
      String created =
          urlSend(
              "POST",
              a.ext("/api/v1/mesh/?actor=" + IDLE_ACTOR),
              "{\"payload\":{\"text\":\"hi\"}}",
              201);
      String id = created.replaceAll(".*\"id\"\\s*:\\s*\"([^\"]+)\".*", "$1");
      urlSend(
          "POST",
          a.internal("/api/v1/mesh/" + id + "/events"),
          "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"bench\",\"result\":{}}}",
          204);
      HttpURLConnection c =
          (HttpURLConnection)
              URI.create(a.ext("/api/v1/mesh/" + id + "/events")).toURL().openConnection();
      try (var in =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  c.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null && !line.contains("\"status\":\"succeeded\"")) {
          if (line.contains("\"failed\"") || line.contains("\"canceled\"")) {
            throw new IllegalStateException("envelope " + id + " ended " + line);
          }
        }
        if (line == null) {
          throw new IllegalStateException("SSE of " + id + " ended without the terminal event");
        }
        long t = System.nanoTime() - t0;
        // the stream ends after the terminal event: read it to its end so the connection is reused
        while (in.readLine() != null) {
          // nothing else is expected
        }
        return t;
      }
    }
  }

  static String urlSend(String method, String url, String body, int expect) throws Exception {
    HttpURLConnection c = (HttpURLConnection) URI.create(url).toURL().openConnection();
    c.setRequestMethod(method);
    if (body != null) {
      c.setDoOutput(true);
      c.setRequestProperty("Content-Type", "application/json");
      try (var out = c.getOutputStream()) {
        out.write(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    int status = c.getResponseCode();
    if (status != expect) {
      throw new IllegalStateException(method + " " + url + " answered " + status);
    }
    try (var in = c.getInputStream()) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  static void print(String name, long[] nanos) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    System.out.printf(
        "%-66s p50 %7.2f  p90 %7.2f  p99 %7.2f  max %7.2f%n",
        name, pct(s, 50), pct(s, 90), pct(s, 99), s[s.length - 1] / 1e6);
  }

  static double pct(long[] sorted, double p) {
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }
}

package io.taskmesh.meshapi;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * assigned receives it), (2) mesh-api alone: create, then the terminal status posted straight to
 * {@code /events} (no Kafka consumer, no sidecar), SSE terminal.
 *
 * <pre>
 * mvn -o -q -pl mesh-api test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/meshcp.txt -Dmdep.includeScope=test
 * java [-Dn=200] -Dtaskmesh.root=$PWD -cp mesh-api/target/test-classes:mesh-api/target/classes:$(cat /tmp/meshcp.txt) io.taskmesh.meshapi.MeshLatencyBench
 * </pre>
 */
public final class MeshLatencyBench {
  static final int N = Integer.getInteger("n", 200);
  static final int WARMUP = Integer.getInteger("warmup", 20);

  public static void main(String[] args) throws Exception {
    Path root = Path.of(System.getProperty("taskmesh.root", ".")).toAbsolutePath().normalize();
    String bootstrap = LocalKafka.shared().bootstrapServers();
    try (MeshFixture f = new MeshFixture(Map.of(), Map.of())) {
      MeshFixture.Replica a = f.a;
      String ns = f.namespace;
      createTopics(
          bootstrap,
          Topics.actorQueue(ns, "echo"),
          Topics.actorQueue(ns, "x-sink"),
          Topics.actorQueue(ns, "x-sump"),
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

        long[] kafka = rawKafka(bootstrap, "bench-raw-" + ns);
        long[] meshOnly = measure(f, a, false);
        long[] e2e = measure(f, a, true);
        System.out.printf(
            "%n%d sequential requests each, after %d warm-up; latency in ms%n", N, WARMUP);
        print("raw Kafka produce->consume (baseline)", kafka);
        print("mesh-api alone: create -> POST /events succeeded -> SSE terminal", meshOnly);
        print("create -> echo sidecar -> x-sink -> SSE terminal", e2e);
      }
      reporter.close();
    }
    System.exit(0);
  }

  /**
   * One create + SSE until terminal per sample; {@code throughActor}: the echo actor ends it, else
   * we post it.
   */
  static long[] measure(MeshFixture f, MeshFixture.Replica a, boolean throughActor)
      throws Exception {
    List<Long> samples = new ArrayList<>();
    for (int i = 0; i < WARMUP + N; i++) {
      long t0 = System.nanoTime();
      MeshFixture.Resp c =
          f.send(
              "POST",
              a.ext("/api/v1/mesh/?actor=echo"),
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
      long t = System.nanoTime() - t0;
      if (i >= WARMUP) {
        samples.add(t);
      }
    }
    return samples.stream().mapToLong(Long::longValue).toArray();
  }

  static long[] rawKafka(String bootstrap, String topic) throws Exception {
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaProducer<String, String> p =
            new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer());
        KafkaConsumer<String, String> c =
            new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToEnd(List.of(tp));
      c.position(tp);
      List<Long> samples = new ArrayList<>();
      String value = "{\"id\":\"" + UUID.randomUUID() + "\",\"payload\":{\"text\":\"hi\"}}";
      for (int i = 0; i < WARMUP + N; i++) {
        String key = "k" + i;
        long t0 = System.nanoTime();
        p.send(new ProducerRecord<>(topic, 0, key, value)).get();
        boolean got = false;
        while (!got) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
            got |= r.key().equals(key);
          }
        }
        if (i >= WARMUP) {
          samples.add(System.nanoTime() - t0);
        }
      }
      return samples.stream().mapToLong(Long::longValue).toArray();
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

package io.taskmesh.sidecar;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.function.UnaryOperator;
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
 * One namespace of real parts for an IT: the shared broker, a gateway recorder, runtimes and
 * sidecars started on demand, all closed together.
 */
final class TestMesh implements AutoCloseable {
  final LocalKafka kafka = LocalKafka.shared();
  final String namespace = "t" + UUID.randomUUID().toString().substring(0, 8);
  final GatewayRecorder gateway = new GatewayRecorder();
  final GatewayReporter reporter;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final KafkaProducer<String, byte[]> producer;

  TestMesh() {
    reporter = new GatewayReporter(gateway.url());
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    producer = new KafkaProducer<>(p);
  }

  static Path repoRoot() {
    return Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
  }

  static Path handlersDir() {
    return repoRoot().resolve("sidecar/src/test/resources/handlers");
  }

  SidecarConfig config(String actor, Path socketDir) {
    return SidecarConfig.of(kafka.bootstrapServers(), namespace, actor, socketDir, null);
  }

  RuntimeProcess runtime(String handler) {
    return runtime(handlersDir(), handler);
  }

  RuntimeProcess runtime(Path handlerDir, String handler) {
    return runtime(handlerDir, handler, Map.of());
  }

  RuntimeProcess runtime(Path handlerDir, String handler, Map<String, String> env) {
    try {
      Path dir = Files.createTempDirectory("svc-rt");
      RuntimeProcess rt =
          RuntimeProcess.startReady(
              repoRoot().resolve("runtime"), handlerDir, handler, dir, env, Duration.ofSeconds(30));
      closing.add(0, rt);
      return rt;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A runtime plus its sidecar, config adjusted by {@code tweak}. */
  Sidecar sidecar(String actor, String handler, UnaryOperator<SidecarConfig> tweak, ExitHook exit) {
    RuntimeProcess rt = runtime(handler);
    return sidecar(rt, tweak.apply(config(actor, rt.socketDir())), exit);
  }

  Sidecar sidecar(String actor, String handler) {
    return sidecar(
        actor,
        handler,
        c -> c,
        status -> {
          throw new AssertionError("unexpected exit " + status);
        });
  }

  Sidecar sidecar(RuntimeProcess rt, SidecarConfig cfg, ExitHook exit) {
    return sidecar(rt.socketPath(), cfg, exit);
  }

  Sidecar sidecar(Path socketPath, SidecarConfig cfg, ExitHook exit) {
    RuntimeClient client = new RuntimeClient(socketPath);
    Sidecar s = new Sidecar(cfg, client, reporter, exit, Duration.ofSeconds(30));
    s.start();
    closing.add(0, client);
    closing.add(0, s);
    return s;
  }

  SinkActor sink() {
    SinkActor sink = new SinkActor(config("x-sink", Path.of("/tmp")), reporter, s -> {});
    sink.start();
    closing.add(0, sink);
    return sink;
  }

  SinkActor sink(CrewConfig crew) {
    SinkActor sink = new SinkActor(config("x-sink", Path.of("/tmp")), crew, reporter, s -> {});
    sink.start();
    closing.add(0, sink);
    return sink;
  }

  /**
   * x-pause with a stable instance id, so a second one started after closing the first takes over
   * at once.
   */
  PauseActor pause(CrewConfig crew) {
    SidecarConfig base = config("x-pause", Path.of("/tmp"));
    SidecarConfig cfg =
        new SidecarConfig(
            base.bootstrapServers(),
            base.namespace(),
            base.actorName(),
            base.socketDir(),
            base.socketName(),
            null,
            base.actorTimeout(),
            1,
            base.backoff(),
            List.of(),
            1,
            3,
            500,
            1,
            (short) 1,
            "pause-0",
            true,
            Duration.ofSeconds(15),
            Duration.ofSeconds(60));
    PauseActor pause =
        new PauseActor(
            cfg,
            crew,
            reporter,
            s -> {
              throw new AssertionError("x-pause exit " + s);
            });
    pause.start();
    closing.add(0, pause);
    return pause;
  }

  SumpActor sump() {
    SumpActor sump = new SumpActor(config("x-sump", Path.of("/tmp")), reporter, s -> {});
    sump.start();
    closing.add(0, sump);
    return sump;
  }

  String topic(String actor) {
    return Topics.actorQueue(namespace, actor);
  }

  /** An envelope at the start of {@code actors}, reporting to the recorder through the header. */
  Envelope envelope(String id, Object payload, String... actors) {
    Route route = Route.start(actors[0], List.of(actors).subList(1, actors.length));
    return new Envelope(
        id,
        null,
        route,
        null,
        Json.tree(payload),
        Map.of(Envelope.GATEWAY_URL_HEADER, gateway.url()));
  }

  void send(Envelope e) {
    send(Topics.actorQueue(namespace, e.route().curr()), e.id(), Json.bytes(e));
  }

  void send(String topic, String key, byte[] value) {
    send(new ProducerRecord<>(topic, key, value));
  }

  void send(ProducerRecord<String, byte[]> record) {
    try {
      producer.send(record).get();
    } catch (Exception ex) {
      throw new IllegalStateException(ex);
    }
  }

  /**
   * Every committed record of a topic, from the beginning, waiting until at least {@code min} are
   * there.
   */
  List<ConsumerRecord<String, byte[]>> read(String topic, int min, Duration timeout) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    List<ConsumerRecord<String, byte[]>> out = new ArrayList<>();
    try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p)) {
      long deadline = System.nanoTime() + timeout.toNanos();
      List<TopicPartition> parts = new ArrayList<>();
      while (parts.isEmpty()) {
        c.partitionsFor(topic).forEach(pi -> parts.add(new TopicPartition(topic, pi.partition())));
      }
      c.assign(parts);
      c.seekToBeginning(parts);
      while (out.size() < min && System.nanoTime() < deadline) {
        c.poll(Duration.ofMillis(100)).forEach(out::add);
      }
      // anything more that is already there (to catch duplicates)
      long extra = System.nanoTime() + Duration.ofMillis(300).toNanos();
      while (System.nanoTime() < extra) {
        c.poll(Duration.ofMillis(50)).forEach(out::add);
      }
    }
    return out;
  }

  List<Envelope> envelopes(String topic, int min, Duration timeout) {
    return read(topic, min, timeout).stream()
        .map(r -> Json.read(r.value(), Envelope.class))
        .toList();
  }

  /** Closed with the mesh, before what was registered earlier. */
  void closeLater(AutoCloseable c) {
    closing.add(0, c);
  }

  @Override
  public void close() {
    for (AutoCloseable c : closing) {
      try {
        c.close();
      } catch (Exception ignored) {
        // best effort
      }
    }
    reporter.close();
    producer.close();
    gateway.close();
  }
}

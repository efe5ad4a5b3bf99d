package io.taskmesh.topology;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * On-demand benchmark (not a test): fold throughput of the task topology vs a raw consumer of the
 * same topic, and the replay of N events (time, heap, RocksDB size). The fold is measured from an
 * empty application, which is exactly a replay.
 *
 * <pre>
 * mvn -B -o -q -pl benchmarks -am test-compile
 * CP="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
 * java -cp "$CP" io.taskmesh.topology.TaskBench 1000000
 * </pre>
 *
 * Uses KAFKA_BOOTSTRAP_SERVERS when set, else starts a local one-node broker.
 */
public final class TaskBench {
  private TaskBench() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    String bootstrap = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    if (bootstrap == null || bootstrap.isBlank()) {
      bootstrap = LocalKafka.shared().bootstrapServers();
    }
    String prefix = "bench-" + UUID.randomUUID().toString().substring(0, 8);
    TaskTopics topics = TaskTopics.named(prefix + ".events", prefix + ".updates", "tasks");
    Path state = Files.createTempDirectory("taskmesh-bench");
    TaskViewConfig config = new TaskViewConfig(bootstrap, prefix + "-app", state, 3, (short) 1);
    // creates the topics; the first run folds nothing
    TaskView.start(config, topics, Duration.ofSeconds(60)).close();
    TaskReplay.reset(config, Duration.ofSeconds(60));

    long t0 = System.nanoTime();
    int tasks = produce(bootstrap, topics, events);
    double produceS = (System.nanoTime() - t0) / 1e9;
    System.out.printf(
        "produced %,d events (%,d tasks) in %.1f s (%,.0f/s)%n",
        events, tasks, produceS, events / produceS);

    double rawS = rawConsume(bootstrap, topics.events().name(), events);
    System.out.printf(
        "raw consumer:   %,d events in %.2f s = %,.0f events/s%n", events, rawS, events / rawS);
    double parsedS =
        rawConsume(
            bootstrap, topics.events().name(), events, topics.events().valueSerde().deserializer());
    System.out.printf(
        "raw consumer that also parses each event: %,d events in %.2f s = %,.0f events/s%n",
        events, parsedS, events / parsedS);

    double copyRawS = rawCopy(bootstrap, topics.events().name(), prefix + ".raw-copy", events);
    System.out.printf(
        "raw consumer + raw producer copying each record to a topic (no transactions): %,d events in %.2f s = %,.0f events/s%n",
        events, copyRawS, events / copyRawS);
    // what the Streams runtime itself costs under the fold's settings, with no work per record
    double countS = streamsCeiling(config, topics.events().name(), events, null);
    System.out.printf(
        "exactly-once Streams app that only counts each record:        %,d events in %.2f s = %,.0f events/s%n",
        events, countS, events / countS);
    double copyS = streamsCeiling(config, topics.events().name(), events, prefix + ".ceiling-copy");
    System.out.printf(
        "exactly-once Streams app that copies each record to a topic: %,d events in %.2f s = %,.0f events/s%n",
        events, copyS, events / copyS);

    Thread progress = progressPrinter(bootstrap, config.applicationId());
    TaskReplay.Result r = TaskReplay.rebuild(config, topics, Duration.ofMinutes(20));
    progress.interrupt();
    double foldS = r.took().toNanos() / 1e9;
    System.gc();
    long heapAfter = usedHeap();
    System.out.printf(
        "fold (replay):  %,d events in %.2f s = %,.0f events/s (incl. Streams start-up), %,d tasks%n",
        r.events(), foldS, r.events() / foldS, r.tasks());
    System.out.printf(
        "ratio fold/raw: %.2f (fold/parsing consumer: %.2f)%n",
        (r.events() / foldS) / (events / rawS), (r.events() / foldS) / (events / parsedS));
    System.out.printf(
        "ceilings as a share of raw: raw copy %.2f, exactly-once Streams counting app %.2f, "
            + "exactly-once Streams copying app %.2f; fold/exactly-once copying app %.2f%n",
        rawS / copyRawS, rawS / countS, rawS / copyS, copyS / foldS);
    System.out.printf(
        "memory: peak resident set of this JVM (heap + RocksDB native) %s; live heap after GC %d MB "
            + "(max heap %d MB); RocksDB state on disk %d MB%n",
        peakRss(), heapAfter >> 20, Runtime.getRuntime().maxMemory() >> 20, dirSize(state) >> 20);
    System.exit(0);
  }

  /** Tasks of 3 actors: created, 9 progress reports, final = 11 events per task. */
  private static int produce(String bootstrap, TaskTopics topics, int events) {
    int perTask = 11;
    int tasks = events / perTask;
    try (KafkaProducer<String, TaskEvent> p =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ProducerConfig.LINGER_MS_CONFIG,
                5,
                ProducerConfig.BATCH_SIZE_CONFIG,
                256 * 1024,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                "lz4"),
            topics.events().keySerde().serializer(),
            topics.events().valueSerde().serializer())) {
      List<String> actors = List.of("a", "b", "c");
      int sent = 0;
      for (int t = 0; sent < events; t++) {
        String id = "task-" + t;
        p.send(
            new ProducerRecord<>(
                topics.events().name(),
                id,
                TaskEvent.created(
                    id,
                    new TaskEvent.Created(
                        "flow",
                        Route.start("a", List.of("b", "c")),
                        JsonNodeFactory.instance.objectNode().put("n", t),
                        null,
                        id,
                        null,
                        null))));
        sent++;
        for (int a = 0; a < 3 && sent < events; a++) {
          for (ActorState st : ActorState.values()) {
            if (sent >= events) {
              break;
            }
            p.send(
                new ProducerRecord<>(
                    topics.events().name(),
                    id,
                    TaskEvent.progress(
                        id, new ProgressReport(null, null, null, actors, a, st.wire(), null))));
            sent++;
          }
        }
        if (sent < events) {
          p.send(
              new ProducerRecord<>(
                  topics.events().name(),
                  id,
                  TaskEvent.finished(
                      id,
                      FinalReport.succeeded(
                          id,
                          JsonNodeFactory.instance.objectNode().put("ok", true),
                          "x-sink",
                          null))));
          sent++;
        }
      }
      p.flush();
      return Math.max(tasks, 1);
    }
  }

  private static double rawConsume(String bootstrap, String topic, int events) {
    return rawConsume(bootstrap, topic, events, null);
  }

  /**
   * The baseline: a plain consumer of the event topic. With {@code events} set it also parses every
   * value into a {@code TaskEvent}, which the fold has to do too (a second, application-level
   * figure beside the byte-level one the target is defined against).
   */
  private static double rawConsume(
      String bootstrap,
      String topic,
      int events,
      org.apache.kafka.common.serialization.Deserializer<TaskEvent> parse) {
    try (KafkaConsumer<byte[], byte[]> c = fromTheStart(bootstrap, topic)) {
      long t0 = System.nanoTime();
      long n = 0;
      long bytes = 0;
      while (n < events) {
        ConsumerRecords<byte[], byte[]> recs = c.poll(Duration.ofMillis(500));
        for (var r : recs) {
          bytes += r.value().length; // touch the payload, as the fold must
          if (parse != null && parse.deserialize(topic, r.value()).taskId().isEmpty()) {
            throw new IllegalStateException("event without a task id");
          }
          n++;
        }
      }
      if (bytes < 0) {
        throw new IllegalStateException();
      }
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  /**
   * A plain consumer of every partition of {@code topic}, without a group, at its first offsets.
   */
  private static KafkaConsumer<byte[], byte[]> fromTheStart(String bootstrap, String topic) {
    KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                2000,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer());
    List<TopicPartition> parts =
        c.partitionsFor(topic).stream()
            .map(pi -> new TopicPartition(topic, pi.partition()))
            .toList();
    c.assign(parts);
    c.seekToBeginning(parts);
    return c;
  }

  /**
   * Writing one record per event is the least the fold does (each accepted event emits an update;
   * the stores' changelogs come on top): a plain consumer and a plain producer (lz4, 256 kB
   * batches, no transactions) copying the topic, timed until the last copy is acknowledged.
   */
  private static double rawCopy(String bootstrap, String topic, String copyTo, int events) {
    try (KafkaConsumer<byte[], byte[]> c = fromTheStart(bootstrap, topic);
        KafkaProducer<byte[], byte[]> p =
            new KafkaProducer<>(
                Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                    bootstrap,
                    ProducerConfig.LINGER_MS_CONFIG,
                    5,
                    ProducerConfig.BATCH_SIZE_CONFIG,
                    256 * 1024,
                    ProducerConfig.COMPRESSION_TYPE_CONFIG,
                    "lz4"),
                new org.apache.kafka.common.serialization.ByteArraySerializer(),
                new org.apache.kafka.common.serialization.ByteArraySerializer())) {
      long t0 = System.nanoTime();
      long n = 0;
      while (n < events) {
        for (var r : c.poll(Duration.ofMillis(500))) {
          p.send(new ProducerRecord<>(copyTo, r.key(), r.value()));
          n++;
        }
      }
      p.flush();
      return (System.nanoTime() - t0) / 1e9;
    }
  }

  /**
   * A Streams application with the fold's settings (exactly-once v2, the replay's commit interval,
   * the same consumer and producer settings) that does nothing with a record but count it, or copy
   * it to {@code copyTo}: the most any topology can get through on this machine, so the fold's
   * distance to raw can be split into the runtime's share and the fold's own work. Timed like the
   * replay: from start-up until the last event is counted.
   */
  private static double streamsCeiling(TaskViewConfig fold, String topic, int events, String copyTo)
      throws Exception {
    TaskViewConfig config =
        new TaskViewConfig(
            fold.bootstrapServers(),
            fold.applicationId() + "-ceiling-" + (copyTo == null ? "count" : "copy"),
            fold.stateDir(),
            fold.partitions(),
            fold.replicationFactor());
    java.util.Properties props = TaskStreamsProps.of(config, true);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    java.util.concurrent.atomic.LongAdder seen = new java.util.concurrent.atomic.LongAdder();
    java.util.concurrent.atomic.AtomicLong firstAt = new java.util.concurrent.atomic.AtomicLong();
    org.apache.kafka.streams.StreamsBuilder b = new org.apache.kafka.streams.StreamsBuilder();
    var bytes = org.apache.kafka.common.serialization.Serdes.ByteArray();
    var in = b.stream(topic, org.apache.kafka.streams.kstream.Consumed.with(bytes, bytes));
    if (copyTo == null) {
      in.foreach((k, v) -> counted(seen, firstAt));
    } else {
      in.peek((k, v) -> counted(seen, firstAt))
          .to(copyTo, org.apache.kafka.streams.kstream.Produced.with(bytes, bytes));
    }
    long t0 = System.nanoTime();
    try (org.apache.kafka.streams.KafkaStreams streams =
        new org.apache.kafka.streams.KafkaStreams(b.build(), props)) {
      streams.start();
      while (seen.sum() < events) {
        Thread.sleep(
            20); // a poll of a counter, not a wait for time: the loop ends when all are counted
      }
      long end = System.nanoTime();
      System.out.printf(
          "  (%s app: first record %.2f s after start; %,.0f events/s from there to the last)%n",
          copyTo == null ? "counting" : "copying",
          (firstAt.get() - t0) / 1e9,
          events / ((end - firstAt.get()) / 1e9));
      double took = (end - t0) / 1e9;
      streams.close(Duration.ofSeconds(30));
      return took;
    }
  }

  private static void counted(
      java.util.concurrent.atomic.LongAdder seen, java.util.concurrent.atomic.AtomicLong firstAt) {
    firstAt.compareAndSet(0, System.nanoTime());
    seen.increment();
  }

  /**
   * Prints the fold's rate every 5 s (committed offsets of the application): the JIT of a fresh JVM
   * makes the first tens of seconds slower than the steady state.
   */
  private static Thread progressPrinter(String bootstrap, String applicationId) {
    Thread t =
        new Thread(
            () -> {
              try (org.apache.kafka.clients.admin.Admin admin =
                  org.apache.kafka.clients.admin.Admin.create(
                      Map.<String, Object>of("bootstrap.servers", bootstrap))) {
                long last = 0;
                long t0 = System.nanoTime();
                while (!Thread.currentThread().isInterrupted()) {
                  Thread.sleep(5000);
                  long sum =
                      admin
                          .listConsumerGroupOffsets(applicationId)
                          .partitionsToOffsetAndMetadata()
                          .get()
                          .values()
                          .stream()
                          .filter(java.util.Objects::nonNull)
                          .mapToLong(o -> o.offset())
                          .sum();
                  System.out.printf(
                      "  fold at %3.0f s: %,d offsets committed, %,.0f events/s in the last 5 s%n",
                      (System.nanoTime() - t0) / 1e9, sum, (sum - last) / 5.0);
                  last = sum;
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                System.out.println("  (progress: " + e + ")");
              }
            },
            "bench-progress");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /** VmHWM of /proc/self/status: the most memory this process has held, Java heap and native. */
  private static String peakRss() {
    try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
      return lines
          .filter(l -> l.startsWith("VmHWM:"))
          .map(l -> l.substring(6).trim())
          .findFirst()
          .orElse("n/a");
    } catch (IOException e) {
      return "n/a";
    }
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    return rt.totalMemory() - rt.freeMemory();
  }

  private static long dirSize(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
    }
  }
}

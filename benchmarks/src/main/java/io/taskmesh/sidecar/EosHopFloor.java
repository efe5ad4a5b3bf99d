package io.taskmesh.sidecar;

import io.taskmesh.devkit.LocalKafka;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.FeatureMetadata;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The floor under a sidecar hop: plain Kafka clients doing what {@link ActorLoop} does for one
 * record, and nothing else (no runtime, no envelope JSON, no progress events). Three hops in a
 * chain, each a read_committed consumer and a transactional producer: poll, send, {@code
 * sendOffsetsToTransaction}, {@code commitTransaction}, one record in flight. A hop is timed as the
 * sidecar's is (record timestamp on its topic -> record timestamp on the next topic), and each step
 * is timed with {@link System#nanoTime()} (one JVM, so the clocks of the threads agree).
 *
 * <p>Client settings can be varied for experiments with system properties {@code floor.consumer.*}
 * and {@code floor.producer.*} (e.g. {@code -Dfloor.consumer.fetch.max.wait.ms=10}).
 */
final class EosHopFloor {
  private static final int HOPS = 3;
  private static final String SENT_NANOS = "floor-sent-nanos";

  /**
   * {@code -Dfloor.second=true}: each transaction also writes one record to a second topic, as the
   * sidecar's {@code completed} progress event does; the difference is the price of a second
   * partition in a transaction.
   */
  private static final boolean SECOND = Boolean.getBoolean("floor.second");

  private final String bootstrap;
  private final String prefix = "floor-" + UUID.randomUUID().toString().substring(0, 6);

  /** Per hop k and record key: when the hop-k loop's poll returned it / its commit returned. */
  private final List<Map<String, Long>> polled = new ArrayList<>();

  private final List<Map<String, Long>> committed = new ArrayList<>();
  private final List<Map<String, long[]>> steps = new ArrayList<>();
  private final Map<String, Long> sourceSent = new ConcurrentHashMap<>();

  /** The figures of the last run, per hop: record-timestamp latencies in nanos. */
  private final List<long[]> hopNanos = new ArrayList<>();

  EosHopFloor(String bootstrap) {
    this.bootstrap = bootstrap;
  }

  /** Prints the broker's finalized {@code transaction.version} (KIP-890 is level 2). */
  static String transactionVersion(String bootstrap) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      FeatureMetadata f = admin.describeFeatures().featureMetadata().get(30, TimeUnit.SECONDS);
      var level = f.finalizedFeatures().get("transaction.version");
      return level == null ? "not finalized (0)" : Short.toString(level.maxVersionLevel());
    }
  }

  /** Runs {@code n} records through the chain, one in flight; returns per-hop latencies. */
  List<long[]> run(int n) throws Exception {
    List<String> topics = new ArrayList<>();
    for (int k = 0; k <= HOPS; k++) {
      topics.add(prefix + "-" + k);
    }
    List<String> created = new ArrayList<>(topics);
    created.add(prefix + "-second");
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(created.stream().map(t -> new NewTopic(t, 1, (short) 1)).toList())
          .all()
          .get(60, TimeUnit.SECONDS);
    }
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> loops = new ArrayList<>();
    for (int k = 0; k < HOPS; k++) {
      polled.add(new ConcurrentHashMap<>());
      committed.add(new ConcurrentHashMap<>());
      steps.add(new ConcurrentHashMap<>());
      Hop hop = new Hop(k, topics.get(k), topics.get(k + 1), running);
      Thread t = new Thread(hop::loop, "floor-hop-" + k);
      t.start();
      loops.add(t);
    }
    KafkaProducer<String, byte[]> source = new KafkaProducer<>(plainProducerProps());
    try (KafkaConsumer<String, byte[]> sink = consumer(null)) {
      TopicPartition last = new TopicPartition(topics.get(HOPS), 0);
      sink.assign(List.of(last));
      sink.seekToBeginning(List.of(last));
      int warm = 50;
      for (int i = 0; i < warm + n; i++) {
        String key = (i < warm ? "w" : "r") + i;
        ProducerRecord<String, byte[]> r = new ProducerRecord<>(topics.get(0), key, new byte[64]);
        r.headers().add(SENT_NANOS, longBytes(System.nanoTime()));
        source.send(r).get();
        awaitOne(sink, Duration.ofSeconds(60));
      }
    } finally {
      running.set(false);
      for (Thread t : loops) {
        t.join(30_000);
      }
      source.close();
    }
    List<Map<String, Long>> ts = new ArrayList<>();
    for (String t : topics) {
      ts.add(timestamps(t));
    }
    hopNanos.clear();
    for (int k = 0; k < HOPS; k++) {
      long[] hop = new long[n];
      for (int i = 0; i < n; i++) {
        String key = "r" + (i + 50);
        hop[i] = (ts.get(k + 1).get(key) - ts.get(k).get(key)) * 1_000_000L;
      }
      hopNanos.add(hop);
    }
    return hopNanos;
  }

  /**
   * Per hop: p50/p99 of the hop and of each step. The wake-up step of hop k is the time from hop
   * k-1's commit returning (for hop 0: the source producer's send) to hop k's poll returning.
   */
  void print(int n) {
    String[] names = {"send", "sendOffsetsToTransaction", "commitTransaction"};
    for (int k = 0; k < HOPS; k++) {
      long[] wake = new long[n];
      long[][] step = new long[names.length][n];
      for (int i = 0; i < n; i++) {
        String key = "r" + (i + 50);
        long[] s = steps.get(k).get(key);
        long upstream = k == 0 ? sourceSent.get(key) : committed.get(k - 1).get(key);
        wake[i] = polled.get(k).get(key) - upstream;
        for (int j = 0; j < names.length; j++) {
          step[j][i] = s[j];
        }
      }
      System.out.printf(
          "   floor hop %d (%s input) p50 %6.2f ms  p99 %6.2f ms | steps p50/p99/mean ms: upstream"
              + " %s -> our poll returns %.2f/%.2f/%.2f",
          k,
          k == 0 ? "plain" : "transactional",
          pct(hopNanos.get(k), 50),
          pct(hopNanos.get(k), 99),
          k == 0 ? "send" : "commit return",
          pct(wake, 50),
          pct(wake, 99),
          mean(wake));
      for (int j = 0; j < names.length; j++) {
        System.out.printf(
            ", %s %.2f/%.2f/%.2f", names[j], pct(step[j], 50), pct(step[j], 99), mean(step[j]));
      }
      System.out.println();
    }
  }

  /** One consume-transform-produce loop; one transaction per polled batch (here: per record). */
  private final class Hop implements AutoCloseable {
    private final int index;
    private final String in;
    private final String out;
    private final AtomicBoolean running;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> producer;

    Hop(int index, String in, String out, AtomicBoolean running) {
      this.index = index;
      this.in = in;
      this.out = out;
      this.running = running;
      this.consumer = consumer(prefix + "-group-" + index);
      this.producer = new KafkaProducer<>(transactionalProps(prefix + "-tx-" + index));
    }

    void loop() {
      try {
        producer.initTransactions();
        consumer.subscribe(List.of(in));
        while (running.get()) {
          ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
          long polledAt = System.nanoTime();
          if (records.isEmpty()) {
            continue;
          }
          producer.beginTransaction();
          long t0 = System.nanoTime();
          Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
          for (ConsumerRecord<String, byte[]> r : records) {
            ProducerRecord<String, byte[]> o = new ProducerRecord<>(out, r.key(), r.value());
            o.headers().add(SENT_NANOS, longBytes(System.nanoTime()));
            producer.send(o);
            if (SECOND) {
              producer.send(new ProducerRecord<>(prefix + "-second", r.key(), r.value()));
            }
            offsets.put(
                new TopicPartition(r.topic(), r.partition()),
                new OffsetAndMetadata(r.offset() + 1));
          }
          long t1 = System.nanoTime();
          producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
          long t2 = System.nanoTime();
          producer.commitTransaction();
          long t3 = System.nanoTime();
          for (ConsumerRecord<String, byte[]> r : records) {
            // read in print(): the downstream hop may poll this record before these puts
            committed.get(index).put(r.key(), t3);
            polled.get(index).put(r.key(), polledAt);
            if (index == 0) {
              sourceSent.put(
                  r.key(), ByteBuffer.wrap(r.headers().lastHeader(SENT_NANOS).value()).getLong());
            }
            steps.get(index).put(r.key(), new long[] {t1 - t0, t2 - t1, t3 - t2});
          }
        }
      } catch (RuntimeException e) {
        System.err.println("floor hop " + index + " stopped: " + e);
      } finally {
        close();
      }
    }

    @Override
    public void close() {
      producer.close(Duration.ofSeconds(5));
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  private static void awaitOne(KafkaConsumer<String, byte[]> c, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (c.poll(Duration.ofMillis(5)).isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the EOS floor chain delivered nothing in " + timeout);
      }
    }
  }

  private Map<String, Long> timestamps(String topic) {
    Map<String, Long> out = new HashMap<>();
    try (KafkaConsumer<String, byte[]> c = consumer(null)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      while (c.position(tp) < end) {
        for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
          out.put(r.key(), r.timestamp());
        }
      }
    }
    return out;
  }

  /** Consumer settings as {@link ActorLoop}'s, plus any {@code floor.consumer.*} overrides. */
  private KafkaConsumer<String, byte[]> consumer(String group) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    if (group != null) {
      p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    }
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    overrides("floor.consumer.", p);
    return new KafkaConsumer<>(p);
  }

  /** Producer settings as {@link ActorLoop}'s, plus any {@code floor.producer.*} overrides. */
  private Properties transactionalProps(String id) {
    Properties p = plainProducerProps();
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 2);
    p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, 50);
    overrides("floor.producer.", p);
    return p;
  }

  private Properties plainProducerProps() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  private static void overrides(String prefix, Properties p) {
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith(prefix))
        .forEach(k -> p.put(k.substring(prefix.length()), System.getProperty(k)));
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(Long.BYTES).putLong(v).array();
  }

  private static double mean(long[] nanos) {
    return Arrays.stream(nanos).average().orElse(0) / 1e6;
  }

  static double pct(long[] nanos, int p) {
    long[] s = nanos.clone();
    Arrays.sort(s);
    int i = (int) Math.ceil(p / 100.0 * s.length) - 1;
    return s[Math.max(0, Math.min(s.length - 1, i))] / 1e6;
  }

  /** Runs the floor alone: {@code [records=300]}. */
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 300;
    String bootstrap = System.getenv("KAFKA_BOOTSTRAP_SERVERS");
    if (bootstrap == null) {
      bootstrap = LocalKafka.shared().bootstrapServers();
    }
    System.out.println("transaction.version finalized: " + transactionVersion(bootstrap));
    EosHopFloor f = new EosHopFloor(bootstrap);
    f.run(n);
    f.print(n);
    System.exit(0);
  }
}

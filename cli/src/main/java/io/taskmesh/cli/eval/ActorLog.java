package io.taskmesh.cli.eval;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads an actor's retained log with a plain consumer: partitions assigned by hand, no group id,
 * nothing committed, so the live consumer group and its offsets are never touched. First the
 * envelopes the actor received (its topic), then what the actor produced for them (every actor
 * queue of the namespace, x-sink and x-pause; not x-sump), each body spilled to disk.
 */
final class ActorLog implements AutoCloseable {
  /** Where replay starts on each partition of the actor's topic. */
  sealed interface Start {}

  /** The earliest retained record. */
  record Earliest() implements Start {}

  /** The first record at or after {@code epochMillis}. */
  record Since(long epochMillis) implements Start {}

  /** These offsets: {@code all} on every partition, or per partition. */
  record FromOffsets(Long all, Map<Integer, Long> perPartition) implements Start {}

  /** One envelope the actor received. */
  record Input(String id, int hop, int partition, long offset, long timestamp, Spill.Slot body) {}

  /** One record the actor produced for an input: frame {@code index}, to topic {@code to}. */
  record LiveOutput(int index, String to, long timestamp, boolean failed, Spill.Slot body) {}

  private static final Duration API_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration QUIET_LIMIT = Duration.ofSeconds(60);

  /** Metadata and offset look-ups (read_committed offsets, as the scans read). */
  private final Admin admin;

  private final Properties settings;
  private final String namespace;
  private final String actor;

  ActorLog(String bootstrap, String namespace, String actor) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "taskmesh-replay-eval");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) API_TIMEOUT.toMillis());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    this.settings = p;
    this.admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                (Object) bootstrap,
                AdminClientConfig.CLIENT_ID_CONFIG,
                "taskmesh-replay-eval",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                (int) API_TIMEOUT.toMillis(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) API_TIMEOUT.toMillis()));
    this.namespace = namespace;
    this.actor = actor;
  }

  private KafkaConsumer<String, byte[]> newConsumer() {
    return new KafkaConsumer<>(settings, new StringDeserializer(), new ByteArrayDeserializer());
  }

  String inputTopic() {
    return Topics.actorQueue(namespace, actor);
  }

  /**
   * The envelopes on the actor's topic from {@code start} up to the end offsets of this moment, at
   * most {@code limit}, those {@code keep} accepts; bodies go to {@code spill}.
   *
   * @throws EvalFailure when the topic does not exist
   */
  List<Input> readInputs(Start start, long limit, Predicate<Envelope> keep, Spill spill) {
    String topic = inputTopic();
    List<TopicPartition> tps = partitions(List.of(topic));
    if (tps.isEmpty()) {
      throw new EvalFailure(
          2,
          "there is no topic "
              + topic
              + " on this cluster: check the actor's name and the namespace (SVC_NAMESPACE)");
    }
    Map<TopicPartition, Long> ends = offsets(tps, OffsetSpec.latest());
    Map<TopicPartition, Long> begins = offsets(tps, OffsetSpec.earliest());
    Map<TopicPartition, Long> from = startOffsets(start, tps, begins, ends);
    List<Input> out = new ArrayList<>();
    scan(
        from,
        ends,
        r -> {
          if (out.size() >= limit) {
            return false;
          }
          Envelope e = envelope(r.value());
          if (e != null && actor.equals(e.route().curr()) && keep.test(e)) {
            out.add(
                new Input(
                    e.id(),
                    e.route().prev().size(),
                    r.partition(),
                    r.offset(),
                    r.timestamp(),
                    spill.append(r.value())));
          }
          return out.size() < limit;
        });
    return out;
  }

  private Map<TopicPartition, Long> startOffsets(
      Start start,
      List<TopicPartition> tps,
      Map<TopicPartition, Long> begins,
      Map<TopicPartition, Long> ends) {
    Map<TopicPartition, Long> from = new HashMap<>();
    if (start instanceof Since s) {
      Map<TopicPartition, Long> found = offsets(tps, OffsetSpec.forTimestamp(s.epochMillis()));
      for (TopicPartition tp : tps) {
        Long o = found.get(tp);
        from.put(tp, o == null || o < 0 ? ends.get(tp) : o);
      }
    } else if (start instanceof FromOffsets f) {
      for (TopicPartition tp : tps) {
        Long wanted = f.all() != null ? f.all() : f.perPartition().get(tp.partition());
        long o = wanted == null ? ends.get(tp) : wanted;
        from.put(tp, Math.max(begins.get(tp), Math.min(ends.get(tp), o)));
      }
    } else {
      from.putAll(begins);
    }
    return from;
  }

  /**
   * Indexes what the actor produced for {@code inputs}: records since the earliest input's time on
   * the topics its sidecar writes to ({@link OutputIndex} says which and how they pair).
   */
  Map<String, List<LiveOutput>> readOutputs(List<Input> inputs, Spill spill) {
    OutputIndex index = new OutputIndex(namespace, actor, inputs, spill);
    if (inputs.isEmpty()) {
      return index.outputs();
    }
    List<String> names =
        call(admin.listTopics().names()).stream().filter(index::reads).sorted().toList();
    List<TopicPartition> tps = partitions(names);
    if (tps.isEmpty()) {
      return index.outputs();
    }
    Map<TopicPartition, Long> ends = offsets(tps, OffsetSpec.latest());
    Map<TopicPartition, Long> found = offsets(tps, OffsetSpec.forTimestamp(index.since()));
    Map<TopicPartition, Long> from = new HashMap<>();
    for (TopicPartition tp : tps) {
      Long o = found.get(tp);
      from.put(tp, o == null || o < 0 ? ends.get(tp) : o);
    }
    scan(
        from,
        ends,
        r -> {
          index.offer(r.topic(), r.timestamp(), r.value());
          return true;
        });
    return index.outputs();
  }

  /**
   * Reads every partition from {@code from} to {@code ends}; {@code each} false stops early. A
   * consumer of its own per scan, partitions paused as they reach their end: a partition taken from
   * the assignment while a fetch for it is in flight makes the client log a warning.
   */
  private void scan(
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> ends,
      Predicate<ConsumerRecord<String, byte[]>> each) {
    Set<TopicPartition> open = new HashSet<>();
    for (Map.Entry<TopicPartition, Long> e : from.entrySet()) {
      if (e.getValue() < ends.get(e.getKey())) {
        open.add(e.getKey());
      }
    }
    if (open.isEmpty()) {
      return;
    }
    KafkaConsumer<String, byte[]> reader = newConsumer();
    try {
      reader.assign(open);
      open.forEach(tp -> reader.seek(tp, from.get(tp)));
      long quietSince = System.nanoTime();
      while (!open.isEmpty()) {
        var records = reader.poll(Duration.ofMillis(500));
        if (!records.isEmpty()) {
          quietSince = System.nanoTime();
        } else if (System.nanoTime() - quietSince > QUIET_LIMIT.toNanos()) {
          throw new EvalFailure(
              3, "the log stopped answering for " + QUIET_LIMIT.toSeconds() + " s while reading");
        }
        for (ConsumerRecord<String, byte[]> r : records) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          if (open.contains(tp) && r.offset() < ends.get(tp) && !each.test(r)) {
            return;
          }
        }
        List<TopicPartition> done = new ArrayList<>();
        for (TopicPartition tp : open) {
          if (reader.position(tp) >= ends.get(tp)) {
            done.add(tp);
          }
        }
        reader.pause(done);
        done.forEach(open::remove);
      }
    } finally {
      reader.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  private static Envelope envelope(byte[] value) {
    try {
      return value == null ? null : Json.MAPPER.readValue(value, Envelope.class);
    } catch (IOException | RuntimeException e) {
      return null; // not an envelope: the sidecar would have sent it to x-sink as invalid
    }
  }

  /** The partitions of the topics that exist among {@code topics}. */
  private List<TopicPartition> partitions(List<String> topics) {
    List<TopicPartition> out = new ArrayList<>();
    if (topics.isEmpty()) {
      return out;
    }
    Map<String, TopicDescription> described;
    try {
      described =
          admin
              .describeTopics(topics)
              .allTopicNames()
              .get(API_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return out;
      }
      throw failure(e);
    } catch (TimeoutException e) {
      throw failure(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EvalFailure(3, "interrupted while asking the cluster for its topics");
    }
    described.forEach(
        (name, d) -> d.partitions().forEach(p -> out.add(new TopicPartition(name, p.partition()))));
    return out;
  }

  /** Offsets of {@code tps} as a read_committed reader sees them (the last stable offset). */
  private Map<TopicPartition, Long> offsets(List<TopicPartition> tps, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> query = new HashMap<>();
    tps.forEach(tp -> query.put(tp, spec));
    Map<TopicPartition, Long> out = new HashMap<>();
    call(admin.listOffsets(query, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all())
        .forEach((tp, info) -> out.put(tp, info.offset()));
    return out;
  }

  private static <T> T call(KafkaFuture<T> f) {
    try {
      return f.get(API_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw failure(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EvalFailure(3, "interrupted while asking the cluster");
    }
  }

  private static EvalFailure failure(Exception e) {
    Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
    String m = cause.getMessage() == null ? cause.getClass().getSimpleName() : cause.getMessage();
    return new EvalFailure(3, "the cluster did not answer: " + m.lines().findFirst().orElse(m));
  }

  @Override
  public void close() {
    admin.close(Duration.ofSeconds(5));
  }
}

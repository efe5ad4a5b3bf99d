package io.taskmesh.topology;

import io.taskmesh.servicekit.KafkaProducers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A replay that leaves the current view alone until the new one is complete: it folds the log into
 * a side application ({@code <application id>.replay}), and only once that reached the log end does
 * it reset the real application and hand it the side's state: the side's changelogs are copied to
 * the application's changelog names (same partitions) and the side's input offsets are committed
 * for the application's group. The next gateway start restores from those changelogs and goes on
 * from those offsets. A rebuild that fails or times out changes nothing of the view.
 */
public final class ReplaySwap {
  /** Appended to the application id for the view a replay builds beside the current one. */
  public static final String SIDE_SUFFIX = ".replay";

  private ReplaySwap() {}

  /** The application a replay builds beside {@code config}'s. */
  static TaskViewConfig side(TaskViewConfig config) {
    return new TaskViewConfig(
        config.bootstrapServers(),
        config.applicationId() + SIDE_SUFFIX,
        config.stateDir(),
        config.partitions(),
        config.replicationFactor());
  }

  /**
   * Checks the log and that no replica runs, builds the side view, swaps it in, removes the side.
   *
   * @throws IllegalStateException before the swap: the view is as it was
   */
  public static TaskReplay.Result rebuildBeside(
      TaskViewConfig config, TaskTopics topics, Duration timeout) {
    TaskReplay.checkLogComplete(config, topics);
    String app = config.applicationId();
    try (Admin admin = TaskReplay.admin(config)) {
      TaskReplay.requireStopped(admin, app);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("broker did not answer", e);
    }
    TaskViewConfig side = side(config);
    TaskReplay.reset(side, Duration.ofMinutes(2)); // a failed replay's leftovers
    TaskReplay.Result result;
    try {
      result = TaskReplay.rebuild(side, topics, timeout);
    } catch (RuntimeException e) {
      try {
        TaskReplay.reset(side, Duration.ofMinutes(2));
      } catch (RuntimeException cleanup) {
        e.addSuppressed(cleanup);
      }
      throw e;
    }
    swap(config, side);
    TaskReplay.reset(side, Duration.ofMinutes(2));
    return result;
  }

  private static void swap(TaskViewConfig config, TaskViewConfig side) {
    String app = config.applicationId();
    try (Admin admin = TaskReplay.admin(config)) {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin
              .listConsumerGroupOffsets(side.applicationId())
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      Set<String> changelogs = TaskReplay.internalTopics(admin, side.applicationId());
      TaskReplay.reset(config, Duration.ofMinutes(2));
      Map<String, TopicDescription> described =
          admin.describeTopics(changelogs).allTopicNames().get(30, TimeUnit.SECONDS);
      List<NewTopic> create = new ArrayList<>();
      Map<String, String> targets = new HashMap<>();
      for (String from : changelogs) {
        String to = app + from.substring(side.applicationId().length());
        targets.put(from, to);
        Map<String, String> configs = new HashMap<>();
        configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
        configs.put(
            TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
            Integer.toString(
                io.taskmesh.servicekit.TopicCreator.Spec.minInsyncReplicas(
                    config.replicationFactor())));
        create.add(
            new NewTopic(to, described.get(from).partitions().size(), config.replicationFactor())
                .configs(configs));
      }
      admin.createTopics(create).all().get(30, TimeUnit.SECONDS);
      for (Map.Entry<String, String> t : targets.entrySet()) {
        copy(config, t.getKey(), t.getValue());
      }
      admin.alterConsumerGroupOffsets(app, offsets).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "the new view was built but could not be moved to " + app + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while moving the new view", e);
    }
  }

  /** Every committed record of {@code from}, partition for partition, into {@code to}. */
  private static void copy(TaskViewConfig config, String from, String to) {
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer =
            // a bulk copy nobody waits on record by record: fuller batches beat the preset's linger
            // 0
            KafkaProducers.idempotent(config.bootstrapServers())
                .set(ProducerConfig.LINGER_MS_CONFIG, 20)
                .create(new ByteArraySerializer(), new ByteArraySerializer())) {
      List<TopicPartition> parts =
          consumer.partitionsFor(from).stream()
              .map(i -> new TopicPartition(from, i.partition()))
              .toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> end = consumer.endOffsets(parts);
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not copy " + from + " to " + to);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          producer.send(new ProducerRecord<>(to, r.partition(), r.key(), r.value()));
        }
      }
      producer.flush();
    }
  }
}

package io.taskmesh.sidecar;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * x-pause's view of the compacted parked topic: envelope id to the parked envelope bytes, rebuilt
 * by reading every partition from the beginning (read_committed, no consumer group), then kept
 * current by {@link #catchUp()} before each lookup. A tombstone (null value) removes an id. The
 * topic is the only state, so any x-pause instance can resume any envelope after any restart. Used
 * by one thread (the resume loop).
 */
final class ParkedStore implements AutoCloseable {
  private final KafkaConsumer<String, byte[]> consumer;
  private final List<TopicPartition> partitions;
  private final Map<String, byte[]> parked = new HashMap<>();

  ParkedStore(String bootstrapServers, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    consumer = new KafkaConsumer<>(p);
    partitions = partitionsOf(consumer, topic);
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /**
   * The topic's partitions, waiting (up to 30 s) while the broker does not know the topic yet: a
   * topic created a moment before can answer with no partitions, and a store assigned none would
   * never find a parked envelope.
   */
  private static List<TopicPartition> partitionsOf(
      KafkaConsumer<String, byte[]> consumer, String topic) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      List<TopicPartition> found =
          consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
              .map(pi -> new TopicPartition(topic, pi.partition()))
              .toList();
      if (!found.isEmpty() || System.nanoTime() > deadline) {
        return found;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return found;
      }
    }
  }

  /** Reads everything committed so far (up to the last stable offset of each partition). */
  void catchUp() {
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey()) < e.getValue())) {
      for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(100))) {
        if (r.value() == null) {
          parked.remove(r.key());
        } else {
          parked.put(r.key(), r.value());
        }
      }
    }
  }

  /**
   * The parked envelope of {@code id}, waiting up to {@code wait} for it to be committed; null if
   * none.
   */
  byte[] find(String id, Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    while (true) {
      catchUp();
      byte[] v = parked.get(id);
      if (v != null || System.nanoTime() > deadline) {
        return v;
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
  }

  /**
   * Forgets {@code id} at once (its tombstone is committed; catchUp would read it later anyway).
   */
  void remove(String id) {
    parked.remove(id);
  }

  int partitions() {
    return partitions.size();
  }

  int size() {
    return parked.size();
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}

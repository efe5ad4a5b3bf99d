package io.taskmesh.topology;

import io.taskmesh.schemas.TaskUpdate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of the update topic (no consumer group, from the end) and hands each
 * update to the in-process subscribers of its task: every replica sees every update, so an SSE
 * client on any replica gets updates folded on any other.
 */
final class KafkaUpdateFeed implements UpdateFeed, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaUpdateFeed.class);

  // values stay bytes until a subscriber of the key wants them: most updates have no SSE client
  private final KafkaConsumer<String, byte[]> consumer;
  private final Deserializer<TaskUpdate> values;
  private final String topic;
  private final Map<String, List<Consumer<TaskUpdate>>> subscribers = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  KafkaUpdateFeed(String bootstrapServers, TaskTopics.Topic<TaskUpdate> updates) {
    this.topic = updates.name();
    this.consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
        // read_uncommitted: a live update reaches SSE as soon as the fold produced it, not at the
        // next exactly-once commit (up to commit.interval.ms + the commit later). Safe because the
        // fold is deterministic: an aborted batch is folded again from the same log into updates
        // with the same seq and content, and SSE sessions skip any seq they already sent.
        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted",
        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
        ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50),
        updates.keySerde().deserializer(), new ByteArrayDeserializer());
    this.values = updates.valueSerde().deserializer();
    this.thread = new Thread(this::run, "task-update-feed");
    this.thread.setDaemon(true);
  }

  /** Positions at the end of every partition before returning, so no later update is missed. */
  void start() {
    List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
        .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(consumer::position); // resolve the lazy seek now
    thread.start();
  }

  @Override
  public AutoCloseable subscribe(String taskId, Consumer<TaskUpdate> listener) {
    subscribers.computeIfAbsent(taskId, k -> new CopyOnWriteArrayList<>()).add(listener);
    return () -> subscribers.computeIfPresent(taskId, (k, list) -> {
      list.remove(listener);
      return list.isEmpty() ? null : list;
    });
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          List<Consumer<TaskUpdate>> list = subscribers.get(r.key());
          if (list != null && r.value() != null) {
            TaskUpdate update;
            try {
              update = values.deserialize(r.topic(), r.value());
            } catch (RuntimeException e) {
              LOG.warn("unreadable update of task {} at {}-{}@{}: {}", r.key(), r.topic(), r.partition(), r.offset(), e.toString());
              continue;
            }
            for (Consumer<TaskUpdate> l : list) {
              try {
                l.accept(update);
              } catch (RuntimeException e) {
                LOG.warn("update subscriber of task {} failed: {}", r.key(), e.toString());
              }
            }
          }
        }
      }
    } catch (WakeupException closing) {
      // close() woke the poll
    } catch (RuntimeException e) {
      LOG.error("task update feed stopped", e);
    } finally {
      consumer.close(Duration.ofSeconds(2));
    }
  }

  @Override
  public void close() {
    running = false;
    if (thread.getState() == Thread.State.NEW) {
      consumer.close(Duration.ofSeconds(2));
      return;
    }
    consumer.wakeup();
    try {
      thread.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

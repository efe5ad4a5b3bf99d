package io.taskmesh.servicekit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads every partition of one topic with a plain consumer (assigned, no group, from the end) and
 * hands each record to the in-process subscribers of its key. Every process sees every record, so a
 * client connected to any replica gets what any other replica published. Values stay bytes until a
 * subscriber of the key wants them: most records have nobody listening.
 *
 * <p>Listeners run on the one feed thread and must not block: each queues into its own bounded
 * buffer (an SSE writer) and returns. A listener that throws is logged and skipped.
 */
public final class TopicFanout<V> implements AutoCloseable {
  /** Turns a record value into what subscribers get; may throw on bytes it cannot read. */
  @FunctionalInterface
  public interface Decoder<V> {
    V decode(byte[] value);
  }

  private static final Logger LOG = LoggerFactory.getLogger(TopicFanout.class);

  /** How long a fetch may wait at the broker for a first record (close() wakes the poll). */
  public static final int IDLE_FETCH_WAIT_MS = 5_000;

  private static final Duration POLL = Duration.ofMillis(IDLE_FETCH_WAIT_MS);
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(2);
  private static final Duration START_WAIT = Duration.ofSeconds(30);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Decoder<V> decoder;
  private final Map<String, List<Consumer<V>>> subscribers = new ConcurrentHashMap<>();
  private final List<Consumer<V>> everyKey = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  /**
   * @param clientId names the consumer (and its feed thread) in logs and broker metrics
   */
  public TopicFanout(String bootstrapServers, String topic, String clientId, Decoder<V> decoder) {
    this.topic = topic;
    this.decoder = decoder;
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG,
                clientId,
                // read_uncommitted (the default, stated here): a record reaches subscribers as soon
                // as it
                // is written, not at its producer's next transaction commit. The producers of our
                // fan-out
                // topics are idempotent or deterministic (a re-folded update has the same seq), and
                // subscribers skip what they already have.
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_uncommitted",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                // a fetch answers as soon as a record arrives, so a long wait costs no latency;
                // it spares an idle stack's broker a fetch every 50 ms per fan-out
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                IDLE_FETCH_WAIT_MS),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    this.thread = Threads.newDaemon(clientId, this::run);
  }

  /** Positions at the end of every partition before returning, so no later record is missed. */
  public TopicFanout<V> start() {
    List<TopicPartition> partitions = partitions();
    consumer.assign(partitions);
    consumer.seekToEnd(partitions);
    partitions.forEach(p -> consumer.position(p, START_WAIT)); // resolve the lazy seek now
    thread.start();
    return this;
  }

  /**
   * The topic's partitions. A topic created a moment ago can be unknown yet to the broker asked (on
   * a cluster of several, metadata reaches each broker on its own): asked again until it has
   * partitions or {@link #START_WAIT} is over. Assigning none would stop the fan-out at its first
   * poll, and every subscriber would wait for records that never come.
   */
  private List<TopicPartition> partitions() {
    long deadline = System.nanoTime() + START_WAIT.toNanos();
    while (true) {
      List<TopicPartition> found =
          consumer.partitionsFor(topic, START_WAIT).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      if (!found.isEmpty()) {
        return found;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "topic " + topic + " has no partitions after " + START_WAIT.toSeconds() + " s");
      }
      try {
        Thread.sleep(100); // metadata of a new topic: a broker learns it within milliseconds
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for topic " + topic, e);
      }
    }
  }

  /** Subscribes to the records of {@code key}; close the handle to unsubscribe. */
  public AutoCloseable subscribe(String key, Consumer<V> listener) {
    subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(listener);
    return () ->
        subscribers.computeIfPresent(
            key,
            (k, list) -> {
              list.remove(listener);
              return list.isEmpty() ? null : list;
            });
  }

  /** Subscribes to the records of every key (a live list of all tasks); close to unsubscribe. */
  public AutoCloseable subscribeAll(Consumer<V> listener) {
    everyKey.add(listener);
    return () -> everyKey.remove(listener);
  }

  /**
   * Hands {@code value} to the subscribers of {@code key} now, on the caller's thread, before (or
   * instead of) its record coming back from the topic: for a value this process wrote itself.
   * Subscribers of every key get only the topic's copy. The topic's copy still follows, so
   * subscribers of such keys must skip what they already have.
   */
  public void publishLocal(String key, V value) {
    List<Consumer<V>> list = subscribers.get(key);
    if (list == null) {
      return;
    }
    for (Consumer<V> l : list) {
      try {
        l.accept(value);
      } catch (RuntimeException e) {
        LOG.warn("subscriber of {} on {} failed: {}", key, topic, e.toString());
      }
    }
  }

  /** Subscriptions open now, over all keys. */
  public int subscriberCount() {
    return subscribers.values().stream().mapToInt(List::size).sum();
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(POLL)) {
          deliver(r);
        }
      }
    } catch (WakeupException closing) {
      // close() woke the poll
    } catch (RuntimeException e) {
      LOG.error("fan-out of {} stopped", topic, e);
    } finally {
      consumer.close(CloseOptions.timeout(CLOSE_WAIT));
    }
  }

  private void deliver(ConsumerRecord<String, byte[]> r) {
    List<Consumer<V>> list = r.key() == null ? null : subscribers.get(r.key());
    if ((list == null && everyKey.isEmpty()) || r.value() == null) {
      return;
    }
    V value;
    try {
      value = decoder.decode(r.value());
    } catch (RuntimeException e) {
      LOG.warn(
          "unreadable record of {} at {}-{}@{}: {}",
          r.key(),
          r.topic(),
          r.partition(),
          r.offset(),
          e.toString());
      return;
    }
    for (Consumer<V> l : list == null ? everyKey : concat(list, everyKey)) {
      try {
        l.accept(value);
      } catch (RuntimeException e) {
        LOG.warn("subscriber of {} on {} failed: {}", r.key(), topic, e.toString());
      }
    }
  }

  private static <T> List<T> concat(List<T> a, List<T> b) {
    if (b.isEmpty()) {
      return a;
    }
    List<T> both = new ArrayList<>(a);
    both.addAll(b);
    return both;
  }

  @Override
  public void close() {
    running = false;
    if (thread.getState() == Thread.State.NEW) {
      consumer.close(CloseOptions.timeout(CLOSE_WAIT));
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

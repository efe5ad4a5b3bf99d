package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.KafkaProducers;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.servicekit.TopicFanout;
import io.taskmesh.topology.EventLogException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push-notification configs on a compacted topic: one record per config, keyed by {@code [taskId,
 * configId]}, a tombstone when it is deleted, so the topic holds exactly the configs that exist.
 * Every replica reads the whole topic at start (before it serves) and then follows it with a plain
 * consumer (assigned, no group), so each knows every config whichever replica took it.
 */
public final class KafkaPushConfigs implements PushConfigStore {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPushConfigs.class);
  private static final Duration POLL = Duration.ofMillis(TopicFanout.IDLE_FETCH_WAIT_MS);
  private static final long WRITE_WAIT_SECONDS = 30;

  private final String topic;
  private final KafkaProducer<String, byte[]> producer;
  private final KafkaConsumer<String, byte[]> consumer;

  /** What the topic holds now, by record key; guarded by this. */
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  /** Guarded by this. */
  private Listener listener;

  private final Thread thread;
  private volatile boolean running = true;

  private KafkaPushConfigs(String bootstrapServers, String topic) {
    this.topic = topic;
    this.producer =
        KafkaProducers.idempotent(bootstrapServers)
            .set(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000)
            .set(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)
            .create(new StringSerializer(), new ByteArraySerializer());
    this.consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.CLIENT_ID_CONFIG,
                "a2a-push-configs",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                // answered as soon as a config arrives: a long wait spares the idle broker
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG,
                TopicFanout.IDLE_FETCH_WAIT_MS),
            new StringDeserializer(),
            new ByteArrayDeserializer());
    this.thread = Threads.newDaemon("a2a-push-configs", this::follow);
  }

  /**
   * Creates the topic when missing, reads every config stored on it, and follows it from there.
   *
   * @throws IllegalStateException when the broker does not answer within {@code timeout}
   */
  public static KafkaPushConfigs start(
      String bootstrapServers, String topic, TopicCreator.Spec spec, Duration timeout) {
    TopicCreator.ensure(bootstrapServers, List.of(topic), spec.compacted());
    KafkaPushConfigs store = new KafkaPushConfigs(bootstrapServers, topic);
    try {
      store.catchUp(timeout);
      store.thread.start();
      return store;
    } catch (RuntimeException e) {
      store.close();
      throw e;
    }
  }

  private void catchUp(Duration timeout) {
    List<TopicPartition> partitions =
        consumer.partitionsFor(topic, timeout).stream()
            .map(p -> new TopicPartition(p.topic(), p.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
    long deadline = System.nanoTime() + timeout.toNanos();
    while (end.entrySet().stream()
        .anyMatch(e -> consumer.position(e.getKey(), timeout) < e.getValue())) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("push configs of " + topic + " not read within " + timeout);
      }
      consumer.poll(POLL).forEach(this::apply);
    }
    LOG.info("push configs: {} stored on {}", entries.size(), topic);
  }

  private void follow() {
    try {
      while (running) {
        consumer.poll(POLL).forEach(this::apply);
      }
    } catch (WakeupException closing) {
      // close() woke the poll
    } catch (RuntimeException e) {
      LOG.error("push configs: following {} stopped", topic, e);
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    }
  }

  private synchronized void apply(ConsumerRecord<String, byte[]> r) {
    String[] key;
    try {
      JsonNode k = Json.MAPPER.readTree(r.key());
      key = new String[] {k.get(0).asText(), k.get(1).asText()};
    } catch (Exception e) {
      LOG.warn("push configs: unreadable key at {}-{}@{}", r.topic(), r.partition(), r.offset());
      return;
    }
    if (r.value() == null) {
      if (entries.remove(r.key()) != null && listener != null) {
        listener.removed(key[0], key[1]);
      }
      return;
    }
    Entry entry;
    try {
      JsonNode v = Json.MAPPER.readTree(r.value());
      entry =
          new Entry(
              v.get("taskId").asText(),
              (ObjectNode) v.get("config"),
              v.path("form").asText(null),
              v.path("state").asText(null));
    } catch (Exception e) {
      LOG.warn(
          "push configs: unreadable config at {}-{}@{}: {}",
          r.topic(),
          r.partition(),
          r.offset(),
          e.toString());
      return;
    }
    entries.put(r.key(), entry);
    if (listener != null) {
      listener.stored(entry);
    }
  }

  @Override
  public void put(Entry entry) {
    ObjectNode value = Json.MAPPER.createObjectNode();
    value.put("taskId", entry.taskId());
    value.set("config", entry.config());
    value.put("form", entry.form());
    value.put("state", entry.state());
    write(key(entry.taskId(), entry.configId()), value.toString().getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void remove(String taskId, String configId) {
    write(key(taskId, configId), null);
  }

  private void write(String key, byte[] value) {
    try {
      producer
          .send(new ProducerRecord<>(topic, key, value))
          .get(WRITE_WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EventLogException("interrupted while storing a push config", e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw new EventLogException(
          "cannot store a push config on " + topic + ": " + e.getMessage(), e);
    }
  }

  private static String key(String taskId, String configId) {
    return Json.MAPPER.createArrayNode().add(taskId).add(configId).toString();
  }

  @Override
  public void follow(Listener l) {
    List<Entry> stored;
    synchronized (this) {
      this.listener = l;
      stored = new ArrayList<>(entries.values());
      // replayed under the lock: a record applied meanwhile reaches the listener after these
      stored.forEach(l::stored);
    }
  }

  @Override
  public void close() {
    running = false;
    if (thread.getState() == Thread.State.NEW) {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(2)));
    } else {
      consumer.wakeup();
      try {
        thread.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    producer.close(Duration.ofSeconds(2));
  }
}

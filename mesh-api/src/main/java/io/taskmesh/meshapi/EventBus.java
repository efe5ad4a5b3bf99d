package io.taskmesh.meshapi;

import io.taskmesh.schemas.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka side of mesh-api: dispatches envelopes to actor queues and fans status/FLY events out to
 * every replica through one topic. Each replica reads all partitions of that topic with a plain
 * consumer (assigned, no group, from the end), so an event published by any replica reaches the
 * SSE clients of all of them, including its own. Events are at-most-once and never replayed.
 */
public final class EventBus implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

  private final MeshConfig config;
  private final Subscribers subscribers;
  private final KafkaProducer<String, byte[]> producer;
  private final KafkaConsumer<String, byte[]> consumer;
  private final Thread loop;
  private volatile boolean running = true;

  public EventBus(MeshConfig config, Subscribers subscribers) {
    this.config = config;
    this.subscribers = subscribers;
    ensureTopic();
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "mesh-api-producer");
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());

    Properties c = new Properties();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap());
    c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
    c.put(ConsumerConfig.CLIENT_ID_CONFIG, "mesh-api-fanout");
    this.consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
    List<TopicPartition> parts = new ArrayList<>();
    for (PartitionInfo pi : consumer.partitionsFor(config.eventsTopic(), Duration.ofSeconds(30))) {
      parts.add(new TopicPartition(pi.topic(), pi.partition()));
    }
    consumer.assign(parts);
    consumer.seekToEnd(parts);
    // resolve the end offsets now: every event published after the constructor returns is seen
    for (TopicPartition tp : parts) {
      consumer.position(tp, Duration.ofSeconds(30));
    }
    this.loop = new Thread(this::run, "mesh-api-fanout");
    loop.setDaemon(true);
    loop.start();
  }

  private void ensureTopic() {
    try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.kafkaBootstrap(),
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 30_000))) {
      admin.createTopics(List.of(new NewTopic(config.eventsTopic(), config.eventsPartitions(),
          config.eventsReplication()))).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException("cannot create topic " + config.eventsTopic(), e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Kafka did not answer creating " + config.eventsTopic(), e);
    }
  }

  private void run() {
    try {
      while (running) {
        for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
          try {
            subscribers.deliver(Json.read(r.value(), MeshEvent.class));
          } catch (RuntimeException e) {
            LOG.warn("dropping an unreadable fan-out record at {}-{}@{}: {}", r.topic(), r.partition(),
                r.offset(), e.getMessage());
          }
        }
      }
    } catch (WakeupException e) {
      // closing
    } catch (RuntimeException e) {
      LOG.error("fan-out consumer stopped", e);
    } finally {
      consumer.close(Duration.ofSeconds(2));
    }
  }

  /** Publishes to every replica; fire and forget (at-most-once, logged on failure). */
  public void publish(MeshEvent e) {
    producer.send(new ProducerRecord<>(config.eventsTopic(), e.id(), Json.bytes(e)), (md, ex) -> {
      if (ex != null) {
        LOG.warn("fan-out of {} event for {} failed: {}", e.type(), e.id(), ex.getMessage());
      }
    });
  }

  /** Sends an envelope to its actor queue and waits for the broker's acknowledgement. */
  public void dispatch(String topic, String key, byte[] envelope) {
    try {
      producer.send(new ProducerRecord<>(topic, key, envelope)).get(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw MeshException.unavailable("interrupted while dispatching", e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw MeshException.unavailable("dispatch to " + topic + " failed: " + cause, cause);
    }
  }

  @Override
  public void close() {
    running = false;
    consumer.wakeup();
    try {
      loop.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    producer.close(Duration.ofSeconds(5));
  }
}

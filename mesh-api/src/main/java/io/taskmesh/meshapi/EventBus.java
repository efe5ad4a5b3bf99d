package io.taskmesh.meshapi;

import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ApiException;
import io.taskmesh.servicekit.KafkaProducers;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.servicekit.TopicFanout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka side of mesh-api: dispatches envelopes to actor queues and fans status/FLY events out to
 * every replica through one topic. Each replica reads all partitions of that topic (a {@link
 * TopicFanout}: assigned, no group, from the end), so an event published by any replica reaches the
 * SSE clients of all of them, including its own. Events are keyed by envelope id, at-most-once and
 * never replayed.
 */
public final class EventBus implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EventBus.class);

  private final MeshConfig config;
  private final KafkaProducer<String, byte[]> producer;
  private final TopicFanout<MeshEvent> fanout;

  /**
   * Creates the events topic when missing, retrying a broker that does not answer yet for {@link
   * MeshConfig#startupRetryTimeout()}.
   *
   * @throws StartupRetry.GaveUp when the broker still does not answer after that
   */
  public EventBus(MeshConfig config) {
    this.config = config;
    try {
      TopicCreator.ensure(
          config.kafkaBootstrap(),
          List.of(config.eventsTopic()),
          TopicCreator.Spec.of(config.eventsPartitions(), config.eventsReplication()),
          TopicCreator.startupRetry(config.kafkaBootstrap(), config.startupRetryTimeout()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
    this.producer =
        KafkaProducers.idempotent(config.kafkaBootstrap())
            .set(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000)
            .set(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5000)
            .set(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 10000)
            .set(ProducerConfig.CLIENT_ID_CONFIG, "mesh-api-producer")
            .create(new StringSerializer(), new ByteArraySerializer());
    // started here: every event published after the constructor returns is seen
    this.fanout =
        new TopicFanout<MeshEvent>(
                config.kafkaBootstrap(),
                config.eventsTopic(),
                "mesh-api-fanout",
                v -> Json.read(v, MeshEvent.class))
            .start();
  }

  /**
   * Subscribes to the events of one envelope; the listener must not block. Close the handle to
   * unsubscribe.
   */
  public AutoCloseable subscribe(String id, Consumer<MeshEvent> listener) {
    return fanout.subscribe(id, listener);
  }

  /** SSE subscriptions open on this replica. */
  public int subscriberCount() {
    return fanout.subscriberCount();
  }

  /** Publishes to every replica; fire and forget (at-most-once, logged on failure). */
  public void publish(MeshEvent e) {
    try {
      producer.send(
          new ProducerRecord<>(config.eventsTopic(), e.id(), Json.bytes(e)),
          (md, ex) -> {
            if (ex != null) {
              LOG.warn("fan-out of {} event for {} failed: {}", e.type(), e.id(), ex.getMessage());
            }
          });
    } catch (RuntimeException ex) {
      // never thrown at a caller: it may already have answered its client (a closed producer
      // throws here rather than failing the send's future)
      LOG.warn("fan-out of {} event for {} failed: {}", e.type(), e.id(), ex.toString());
    }
  }

  /** Sends an envelope to its actor queue and waits for the broker's acknowledgement. */
  public void dispatch(String topic, String key, byte[] envelope) {
    try {
      producer.send(new ProducerRecord<>(topic, key, envelope)).get(15, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ApiException.unavailable("interrupted while dispatching", e);
    } catch (ExecutionException | TimeoutException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw ApiException.unavailable("dispatch to " + topic + " failed: " + cause, cause);
    }
  }

  @Override
  public void close() {
    fanout.close();
    producer.close(Duration.ofSeconds(5));
  }
}

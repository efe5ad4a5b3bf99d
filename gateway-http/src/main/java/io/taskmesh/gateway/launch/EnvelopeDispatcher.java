package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.KafkaProducers;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.StringSerializer;

/** Sends an envelope to the queue of its current actor, {@code svc-{namespace}-{actor}}. */
public final class EnvelopeDispatcher implements EnvelopeQueue, AutoCloseable {
  private final KafkaProducer<String, String> producer;
  private final ActorTopics topics;

  public EnvelopeDispatcher(String bootstrapServers) {
    this.topics = new ActorTopics(bootstrapServers);
    this.producer =
        KafkaProducers.idempotent(bootstrapServers)
            .set(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)
            // one produce request at a time: while it is out, the envelopes of concurrent calls
            // gather and leave together in the next one (fewer, fuller requests: less broker and
            // client CPU per call), and a lone caller never waits (linger stays 0)
            .set(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
            .create(new StringSerializer(), new StringSerializer());
  }

  /**
   * Returns once the broker has the envelope; {@link DispatchException} when it cannot get there.
   */
  @Override
  public void dispatch(String namespace, Envelope envelope) {
    String topic = Topics.actorQueue(namespace, envelope.route().curr());
    // a topic that does not exist on a cluster that creates none would only fail after the
    // producer's 10 s metadata wait: say so at once
    topics.requireDeliverable(topic);
    try {
      producer
          .send(new ProducerRecord<>(topic, envelope.id(), Json.write(envelope)))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DispatchException("interrupted while dispatching to " + topic, e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw new DispatchException("cannot dispatch to " + topic + ": " + e.getMessage(), e);
    }
  }

  /**
   * Hands new input to a parked envelope: {@code {"id", "input"}} on x-pause's resume topic
   * (sidecar/README.md, "Resume"), keyed by the envelope id; returns once the broker has it.
   */
  @Override
  public void resume(String namespace, String envelopeId, JsonNode input) {
    String topic = Topics.pauseResume(namespace);
    ObjectNode value = Json.MAPPER.createObjectNode();
    value.put("id", envelopeId);
    value.set("input", input == null ? NullNode.getInstance() : input);
    try {
      producer
          .send(new ProducerRecord<>(topic, envelopeId, Json.write(value)))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new DispatchException("interrupted while resuming on " + topic, e);
    } catch (ExecutionException | TimeoutException | KafkaException e) {
      throw new DispatchException("cannot resume on " + topic + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    topics.close();
    producer.close(Duration.ofSeconds(5));
  }
}

package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.servicekit.KafkaProducers;
import io.taskmesh.servicekit.ops.KafkaMeters;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The write side of the task view: one idempotent producer that appends events to the log. */
final class TaskEventAppender implements AutoCloseable {
  private final TaskTopics topics;
  private final KafkaProducer<String, TaskEvent> producer;
  private final AutoCloseable meters;

  TaskEventAppender(TaskViewConfig config, TaskTopics topics) {
    this.topics = topics;
    this.producer =
        KafkaProducers.idempotent(config.bootstrapServers())
            .set(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000)
            .set(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)
            // one produce request at a time: while it is out, the events of concurrent calls
            // gather and leave together in the next one (fewer, fuller requests: less broker and
            // client CPU per call), and a lone caller never waits (linger stays 0)
            .set(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
            .create(
                topics.events().keySerde().serializer(), topics.events().valueSerde().serializer());
    this.meters = KafkaMeters.bind(producer);
  }

  /** Returns once the log has the event; {@link EventLogException} when it cannot be written. */
  void append(TaskEvent event) {
    try {
      producer
          .send(new ProducerRecord<>(topics.events().name(), event.taskId(), event))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EventLogException("interrupted while appending a task event", e);
    } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
      throw new EventLogException(
          "cannot append to " + topics.events().name() + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
    KafkaMeters.unbind(meters);
  }
}

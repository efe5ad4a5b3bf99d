package io.taskmesh.sidecar;

import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.servicekit.KafkaProducers;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Progress straight into the gateway's task event log (the topic the envelope's {@code
 * x-svc-task-events} header names), as the same {@code progress} task events the gateway's {@code
 * POST /mesh/{id}/progress} appends. This replaces three HTTP round trips per envelope (each
 * followed by the gateway's own Kafka write) with Kafka writes of our own:
 *
 * <ul>
 *   <li>{@code received} and {@code processing} are sent at once, without waiting, on a plain
 *       idempotent producer, so a long handler still shows as processing while it runs;
 *   <li>{@code completed} becomes one more output of the routing transaction: it is visible exactly
 *       when the next envelope is, and never for a batch that was rolled back;
 *   <li>{@link #flush()} runs before each commit, so the earlier events are in the log before
 *       anything the next actor reports;
 *   <li>x-sink's final report is, the same way, one more output of its transaction ({@link
 *       #finalEvent}), the {@code final} task event the gateway's {@code POST /mesh/{id}/final}
 *       appends: no HTTP round trip per task, and the report is written exactly when x-sink commits
 *       the envelope.
 * </ul>
 */
final class TaskEventLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TaskEventLog.class);

  private final String bootstrapServers;
  private final AtomicBoolean sentSinceFlush = new AtomicBoolean();
  private KafkaProducer<String, byte[]> producer;

  TaskEventLog(String bootstrapServers) {
    this.bootstrapServers = bootstrapServers;
  }

  /**
   * The event log topic for this envelope's progress, or null when it reports over HTTP: no header,
   * or an envelope of mesh-api (whose events are not task events).
   */
  static String topicOf(Envelope e) {
    String topic = e.header(Envelope.TASK_EVENTS_HEADER);
    if (topic == null || topic.isBlank() || GatewayReporter.speaksEvents(e)) {
      return null;
    }
    return topic.trim();
  }

  /** The progress event as a record value: the same JSON the gateway's route appends. */
  static byte[] progressEvent(Envelope e, Route route, ActorState state, String message) {
    return Json.bytes(TaskEvent.progress(e.id(), ProgressReport.routeForm(route, state, message)));
  }

  /**
   * Sends {@link #event} now, not waiting; a failure is logged (progress is advisory, the route is
   * not).
   */
  void sendNow(Outcome.Output event) {
    ProducerRecord<String, byte[]> rec =
        new ProducerRecord<>(event.topic(), event.key(), event.value());
    sentSinceFlush.set(true);
    producer()
        .send(
            rec,
            (md, ex) -> {
              if (ex != null) {
                LOG.warn("progress for {} not written: {}", event.key(), ex.toString());
              }
            });
  }

  /** A progress event as a record of the log, to send now or with the batch's transaction. */
  static Outcome.Output event(
      String topic, Envelope e, Route route, ActorState state, String message) {
    return new Outcome.Output(topic, e.id(), progressEvent(e, route, state, message));
  }

  /** The {@code completed} event as an output of the batch's transaction. */
  static Outcome.Output inTransaction(String topic, Envelope e, Route route, ActorState state) {
    return event(topic, e, route, state, null);
  }

  /**
   * The {@code final} task event of {@code report} as an output of x-sink's transaction, or null
   * when its record would be over the producer's limit (the caller then reports over HTTP, as
   * before: a record that can never be written must not roll back x-sink's batch again and again).
   */
  static Outcome.Output finalEvent(String topic, Envelope e, FinalReport report) {
    byte[] value = Json.bytes(TaskEvent.finished(e.id(), report));
    return value.length > EnvelopeProcessor.MAX_RECORD_BYTES
        ? null
        : new Outcome.Output(topic, e.id(), value);
  }

  /** Waits until every event sent so far is written. */
  void flush() {
    if (sentSinceFlush.getAndSet(false)) {
      try {
        producer().flush();
      } catch (KafkaException e) {
        LOG.warn("progress events not flushed: {}", e.toString());
      }
    }
  }

  /** The producer this log sends on (package-private: tests). */
  synchronized KafkaProducer<String, byte[]> producer() {
    if (producer == null) {
      producer = acquire(bootstrapServers);
    }
    return producer;
  }

  @Override
  public synchronized void close() {
    if (producer != null) {
      release(bootstrapServers);
      producer = null;
    }
  }

  /**
   * The progress producers of this JVM, one per broker list, and how many logs hold each. dev runs
   * every sidecar in one JVM: one producer lets the actors' events share requests and one I/O
   * thread instead of one each (a sidecar of its own process holds the only one).
   */
  private static final Map<String, Shared> SHARED = new HashMap<>();

  private static final class Shared {
    final KafkaProducer<String, byte[]> producer;
    int holders;

    Shared(KafkaProducer<String, byte[]> producer) {
      this.producer = producer;
    }
  }

  private static KafkaProducer<String, byte[]> acquire(String bootstrapServers) {
    synchronized (SHARED) {
      Shared shared = SHARED.computeIfAbsent(bootstrapServers, b -> new Shared(create(b)));
      shared.holders++;
      return shared.producer;
    }
  }

  private static void release(String bootstrapServers) {
    Shared last;
    synchronized (SHARED) {
      Shared shared = SHARED.get(bootstrapServers);
      if (shared == null || --shared.holders > 0) {
        return;
      }
      last = SHARED.remove(bootstrapServers);
    }
    last.producer.close(Duration.ofSeconds(5));
  }

  /** Producers open in this JVM (tests). */
  static int sharedProducers() {
    synchronized (SHARED) {
      return SHARED.size();
    }
  }

  private static KafkaProducer<String, byte[]> create(String bootstrapServers) {
    // 1 ms of linger: received and processing, sent a few microseconds apart, leave as one request
    // while the runtime runs, and the flush() before each commit finds nothing left to wait for
    // (with linger 0 they were two requests, the second often still unanswered at the flush; with
    // 5 ms the flush waited a whole produce round trip on every hop; figures in docs/bench/peer.md
    // and docs/bench/2026-11-27-figures-from-comments.md)
    return KafkaProducers.idempotent(bootstrapServers)
        .set(ProducerConfig.LINGER_MS_CONFIG, 1)
        .create(new StringSerializer(), new ByteArraySerializer());
  }
}

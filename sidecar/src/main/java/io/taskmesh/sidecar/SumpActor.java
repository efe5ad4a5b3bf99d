package io.taskmesh.sidecar;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Topics;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crew actor {@code x-sump} (Java, no runtime), the last layer: counts successes and failures,
 * logs errors, and reports failures as final (a second final for a task is ignored by the gateway).
 */
public final class SumpActor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SumpActor.class);

  private final SidecarConfig config;
  private final GatewayReporter reporter;
  private final ExitHook exitHook;
  private final AtomicLong succeeded = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private TopicAdmin admin;
  private ActorLoop loop;

  /** @param config any sidecar config of the namespace; the actor name is replaced by {@code x-sump} */
  public SumpActor(SidecarConfig config, GatewayReporter reporter, ExitHook exitHook) {
    this.config = config.withActor(Topics.SUMP);
    this.reporter = reporter;
    this.exitHook = exitHook;
  }

  public synchronized void start() {
    admin = new TopicAdmin(config.bootstrapServers(), config.partitions(), config.replicationFactor());
    admin.ensure(List.of(config.inputTopic(), config.deadLetterTopic()));
    loop = new ActorLoop(config, this::handle, exitHook, admin);
    loop.start();
  }

  /** Counted since start (the counters are the metrics of this process; offsets make them per-delivery). */
  public long succeeded() {
    return succeeded.get();
  }

  public long failed() {
    return failed.get();
  }

  private Outcome handle(ConsumerRecord<String, byte[]> record) {
    EnvelopeReader.Read read = EnvelopeReader.read(record.value());
    if (!read.valid()) {
      failed.incrementAndGet();
      LOG.error("x-sump: unreadable envelope {}: {}", record.key(), read.problem());
      return Outcome.done(List.of());
    }
    Envelope e = read.envelope();
    if (SinkActor.succeeded(e)) {
      succeeded.incrementAndGet();
    } else {
      failed.incrementAndGet();
      LOG.warn("x-sump: task {} failed at {}: {}", e.id(), e.status() == null ? "?" : e.status().actor(),
          e.status() == null ? "no status" : e.status().error());
      reporter.finalReport(e, SinkActor.finalReport(e, Topics.SUMP));
    }
    return Outcome.done(List.of());
  }

  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    if (admin != null) {
      admin.close();
    }
  }
}

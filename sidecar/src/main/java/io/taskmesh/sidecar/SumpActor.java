package io.taskmesh.sidecar;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.TopicCreator;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crew actor {@code x-sump} (Java, no runtime), the last layer: counts successes and failures
 * (failures per reason; a counter log line at most every 10 s, see {@link #metricsLine()}), logs
 * errors, and reports failures as final (a second final for a task is ignored by the gateway).
 */
public final class SumpActor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SumpActor.class);

  private final SidecarConfig config;
  private final GatewayReporter reporter;
  private final ExitHook exitHook;
  private final AtomicLong succeeded = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final ConcurrentSkipListMap<String, AtomicLong> failedByReason =
      new ConcurrentSkipListMap<>();

  /** How long x-sump's fetches gather envelopes ({@link ActorLoop.Handler#gathersFor}). */
  static final Duration GATHER = Duration.ofMillis(500);

  private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
  private volatile long lastLog = System.nanoTime();
  private volatile long loggedTotal;
  private TopicCreator admin;
  private ActorLoop loop;

  /**
   * @param config any sidecar config of the namespace; the actor name is replaced by {@code x-sump}
   */
  public SumpActor(SidecarConfig config, GatewayReporter reporter, ExitHook exitHook) {
    this.config = config.withActor(Topics.SUMP);
    this.reporter = reporter;
    this.exitHook = exitHook;
  }

  public synchronized void start() {
    admin = new TopicCreator(config.bootstrapServers());
    KafkaStart.await(admin, config);
    admin.ensure(List.of(config.inputTopic(), config.deadLetterTopic()), config.topicSpec());
    loop =
        new ActorLoop(
            config,
            new ActorLoop.Handler() {
              @Override
              public Outcome handle(ConsumerRecord<String, byte[]> record) {
                return SumpActor.this.handle(record);
              }

              @Override
              public boolean routesNothing() {
                return true; // counts, logs and reports: its offsets need no transaction
              }

              @Override
              public Duration gathersFor() {
                return GATHER; // the last layer: nobody waits on it
              }
            },
            exitHook,
            admin);
    loop.start();
  }

  /**
   * Counted since start (the counters are the metrics of this process; offsets make them
   * per-delivery).
   */
  public long succeeded() {
    return succeeded.get();
  }

  public long failed() {
    return failed.get();
  }

  /** The counter line x-sump logs at most every 10 s (when something changed) and on close. */
  public String metricsLine() {
    StringBuilder reasons = new StringBuilder();
    failedByReason.forEach(
        (k, v) ->
            reasons.append(reasons.length() == 0 ? "" : ",").append(k).append('=').append(v.get()));
    return "x-sump metrics: succeeded="
        + succeeded.get()
        + " failed="
        + failed.get()
        + " failed_by_reason={"
        + reasons
        + "}";
  }

  private void maybeLogMetrics(boolean force) {
    long now = System.nanoTime();
    long total = succeeded.get() + failed.get();
    if (total != loggedTotal && (force || now - lastLog >= LOG_EVERY_NANOS)) {
      lastLog = now;
      loggedTotal = total;
      LOG.info(metricsLine());
    }
  }

  private void countFailure(String reason) {
    failed.incrementAndGet();
    failedByReason
        .computeIfAbsent(reason == null ? "unknown" : reason, k -> new AtomicLong())
        .incrementAndGet();
  }

  private Outcome handle(ConsumerRecord<String, byte[]> record) {
    EnvelopeReader.Read read = EnvelopeReader.read(record.value());
    maybeLogMetrics(false);
    if (!read.valid()) {
      countFailure(Reasons.INVALID_ENVELOPE);
      LOG.error("x-sump: unreadable envelope {}: {}", record.key(), read.problem());
      return Outcome.done(List.of());
    }
    try (EnvelopeTracing.Handling traced = EnvelopeTracing.start(read.envelope(), Topics.SUMP)) {
      return traced.ended(record(read.envelope()));
    }
  }

  private Outcome record(Envelope e) {
    if (SinkActor.succeeded(e)) {
      succeeded.incrementAndGet();
    } else {
      countFailure(e.status() == null ? null : e.status().reason());
      LOG.warn(
          "x-sump: task {} failed at {}: {}",
          e.id(),
          e.status() == null ? "?" : e.status().actor(),
          e.status() == null ? "no status" : e.status().error());
      reporter.finalReport(e, SinkActor.finalReport(e, Topics.SUMP));
    }
    SidecarMetrics.of(Topics.SUMP).envelope("ok");
    return Outcome.done(List.of());
  }

  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    maybeLogMetrics(true);
    if (admin != null) {
      admin.close();
    }
  }
}

package io.taskmesh.sidecar;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.taskmesh.servicekit.ops.KafkaMeters;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * The meters of one actor (sidecar or crew actor), tagged {@code actor}: envelopes by outcome,
 * runtime call and transaction commit durations, and the consumer lag of the actor's topic (what an
 * autoscaler scales the actor's sidecars on). Call sites are one line each.
 */
final class SidecarMetrics {
  /** Envelope outcomes, the {@code outcome} tag of {@code taskmesh_actor_envelopes_total}. */
  static final List<String> OUTCOMES =
      List.of("ok", "retried", "failed", "dlq", "timeout", "canceled");

  private static final Duration[] CALL_BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofSeconds(60),
    Duration.ofSeconds(300)
  };

  /** Steps of a transaction take milliseconds: finer buckets than a runtime call's. */
  private static final Duration[] STEP_BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(100),
    Duration.ofSeconds(1)
  };

  private static final Map<String, SidecarMetrics> BY_ACTOR = new ConcurrentHashMap<>();

  /** Consumers per (actor, topic): several instances of one actor may share a JVM (tests, dev). */
  private static final Map<List<String>, Set<Consumer<?, ?>>> LAG_SOURCES =
      new ConcurrentHashMap<>();

  private final String actor;
  private final Map<String, Counter> envelopes = new ConcurrentHashMap<>();
  private final Timer commits;
  private final DistributionSummary batchSizes;

  /** The steps of one batch ({@link ActorLoop}), registered on first use. */
  private final Map<String, Timer> steps = new ConcurrentHashMap<>();

  /** The runtime call timers by result type, registered on the first call with that result. */
  private final Map<Class<?>, Timer> runtimeCalls = new ConcurrentHashMap<>();

  private SidecarMetrics(String actor) {
    this.actor = actor;
    MeterRegistry r = ServiceMetrics.registry();
    for (String outcome : OUTCOMES) { // all of them exist from the start, so rate() sees the first
      envelopes.put(
          outcome,
          Counter.builder("taskmesh.actor.envelopes")
              .description("Envelopes an actor handled, by outcome")
              .tag("actor", actor)
              .tag("outcome", outcome)
              .register(r));
    }
    commits =
        Timer.builder("taskmesh.actor.commit.duration")
            .description("Duration of one batch's Kafka transaction (outputs + offsets)")
            .tag("actor", actor)
            .serviceLevelObjectives(CALL_BUCKETS)
            .register(r);
    batchSizes =
        DistributionSummary.builder("taskmesh.actor.batch.size")
            .description("Records in one polled batch, i.e. in one Kafka transaction")
            .baseUnit("records")
            .tag("actor", actor)
            .register(r);
  }

  static SidecarMetrics of(String actor) {
    return BY_ACTOR.computeIfAbsent(actor, SidecarMetrics::new);
  }

  void envelope(String outcome) {
    envelopes.get(outcome).increment();
  }

  /** A failed envelope: {@code timeout} when the reason is one, {@code failed} otherwise. */
  void failed(String reason) {
    envelope(Reasons.TIMEOUT.equals(reason) ? "timeout" : "failed");
  }

  /** Times a runtime call; the {@code result} tag is the kind of answer (frames, timed_out...). */
  <T> T runtimeCall(Supplier<T> call) {
    long start = System.nanoTime();
    T result = call.get();
    runtimeCalls
        .computeIfAbsent(result == null ? Void.class : result.getClass(), this::runtimeCallTimer)
        .record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    return result;
  }

  private Timer runtimeCallTimer(Class<?> resultType) {
    return Timer.builder("taskmesh.actor.runtime.call.duration")
        .description("Duration of one call of the actor's runtime (handler), by result")
        .tag("actor", actor)
        .tag("result", resultName(resultType))
        .serviceLevelObjectives(CALL_BUCKETS)
        .register(ServiceMetrics.registry());
  }

  void committed(long startNanos) {
    commits.record(Duration.ofNanos(System.nanoTime() - startNanos));
  }

  void batch(int records) {
    batchSizes.record(records);
  }

  /**
   * Times one step of a batch: {@code mark} (delivery-count commit), {@code handle} (every record,
   * runtime calls included), {@code before_commit} (reports flushed), {@code send} (outputs handed
   * to the producer), {@code offsets} ({@code sendOffsetsToTransaction}), {@code commit} ({@code
   * commitTransaction}). Where a batch's time goes, without a profiler.
   */
  void step(String step, long startNanos) {
    steps
        .computeIfAbsent(
            step,
            s ->
                Timer.builder("taskmesh.actor.batch.step.duration")
                    .description("Duration of one step of a batch's handling and transaction")
                    .tag("actor", actor)
                    .tag("step", s)
                    .serviceLevelObjectives(STEP_BUCKETS)
                    .register(ServiceMetrics.registry()))
        .record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Binds the loop's clients: Kafka's own client meters, and the lag gauge of {@code topic} (sum of
   * the consumer's per-partition {@code records-lag}). Close the result with the clients.
   */
  AutoCloseable bind(Consumer<?, ?> consumer, Producer<?, ?> producer, String topic) {
    List<String> key = List.of(actor, topic);
    Set<Consumer<?, ?>> sources =
        LAG_SOURCES.computeIfAbsent(
            key,
            k -> {
              Set<Consumer<?, ?>> set = ConcurrentHashMap.newKeySet();
              Gauge.builder("taskmesh.actor.consumer.lag", set, SidecarMetrics::lag)
                  .description(
                      "Records in the actor's topic not yet consumed by its group (this process's"
                          + " members)")
                  .baseUnit("records")
                  .tag("actor", actor)
                  .tag("topic", topic)
                  .register(ServiceMetrics.registry());
              return set;
            });
    sources.add(consumer);
    AutoCloseable consumerMeters = KafkaMeters.bind(consumer);
    AutoCloseable producerMeters = KafkaMeters.bind(producer);
    return () -> {
      sources.remove(consumer);
      KafkaMeters.unbind(consumerMeters);
      KafkaMeters.unbind(producerMeters);
    };
  }

  private static double lag(Set<Consumer<?, ?>> consumers) {
    double sum = 0;
    for (Consumer<?, ?> c : consumers) {
      for (Map.Entry<MetricName, ? extends Metric> m : c.metrics().entrySet()) {
        MetricName n = m.getKey();
        if ("records-lag".equals(n.name())
            && "consumer-fetch-manager-metrics".equals(n.group())
            && m.getValue().metricValue() instanceof Double d
            && !d.isNaN()) {
          sum += d;
        }
      }
    }
    return sum;
  }

  private static String resultName(Class<?> resultType) {
    if (resultType == Void.class) {
      return "none";
    }
    // InvokeResult.TimedOut -> timed_out
    return resultType
        .getSimpleName()
        .replaceAll("([a-z])([A-Z])", "$1_$2")
        .toLowerCase(Locale.ROOT);
  }
}

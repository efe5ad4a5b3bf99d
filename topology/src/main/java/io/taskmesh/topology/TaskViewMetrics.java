package io.taskmesh.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Times;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import org.apache.kafka.streams.KafkaStreams;

/**
 * Task meters, counted where a task's events are folded. The fold of a task runs on exactly one
 * replica (the owner of its partition), so summing the replicas counts each task once, which
 * counting in every replica's update feed would not.
 */
public final class TaskViewMetrics {
  /** Task durations span milliseconds (echo) to hours (a paused task waiting for a human). */
  static final Duration[] DURATION_BUCKETS = {
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30),
    Duration.ofMinutes(1),
    Duration.ofMinutes(5),
    Duration.ofMinutes(15),
    Duration.ofHours(1)
  };

  private TaskViewMetrics() {}

  /** Called by the fold with each new state and the update it produced. */
  static void folded(TaskState state, TaskUpdate update) {
    MeterRegistry r = ServiceMetrics.registry();
    String flow = state.flow() == null ? "" : state.flow();
    if (state.seq() == 1) {
      Counter.builder("taskmesh.tasks.started")
          .description(
              "Tasks created (counted by the replica that folds the task); not _created: OpenMetrics reserves that suffix")
          .tag("flow", flow)
          .register(r)
          .increment();
    }
    if (update != null && update.isFinal()) {
      String status = state.status().wire();
      Counter.builder("taskmesh.tasks.finished")
          .description("Tasks that reached a final status")
          .tag("flow", flow)
          .tag("status", status)
          .register(r)
          .increment();
      Duration took = duration(state);
      if (took != null) {
        Timer.builder("taskmesh.task.duration")
            .description("Time from a task's creation to its final status")
            .tag("flow", flow)
            .tag("status", status)
            .serviceLevelObjectives(DURATION_BUCKETS)
            .register(r)
            .record(took);
      }
    }
  }

  private static Duration duration(TaskState s) {
    try {
      Duration d = Duration.between(Times.parse(s.createdAt()), Times.parse(s.updatedAt()));
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException | NullPointerException unreadable) {
      return null;
    }
  }

  /** The Streams client's own meters (thread, task, store and client metrics). */
  static KafkaStreamsMetrics bind(KafkaStreams streams) {
    KafkaStreamsMetrics m = new KafkaStreamsMetrics(streams);
    m.bindTo(ServiceMetrics.registry());
    return m;
  }
}

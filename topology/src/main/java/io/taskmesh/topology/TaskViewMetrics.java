package io.taskmesh.topology;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.kafka.KafkaStreamsMetrics;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Times;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
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

  /** The final statuses, the {@code status} tag of {@code taskmesh_tasks_finished_total}. */
  public static final List<String> FINAL_STATUSES =
      Arrays.stream(TaskStatus.values()).filter(TaskStatus::isFinal).map(TaskStatus::wire).toList();

  private TaskViewMetrics() {}

  /**
   * Creates the task meters of every flow at zero, for every final status: a counter born at its
   * first increment makes {@code rate()} and {@code increase()} miss that increment, and a query on
   * a status no task has reached yet answers nothing instead of 0. Called when the flows load and
   * each time they change; meters of a flow that went away stay (counters never go back).
   */
  public static void flowsLoaded(Collection<String> flows) {
    MeterRegistry r = ServiceMetrics.registry();
    for (String flow : flows) {
      started(r, flow);
      for (String status : FINAL_STATUSES) {
        finished(r, flow, status);
        duration(r, flow, status);
      }
    }
  }

  /** Called by the fold with each new state and the update it produced. */
  static void folded(TaskState state, TaskUpdate update) {
    MeterRegistry r = ServiceMetrics.registry();
    String flow = state.flow() == null ? "" : state.flow();
    if (state.seq() == 1) {
      started(r, flow).increment();
    }
    if (update != null && update.isFinal()) {
      String status = state.status().wire();
      finished(r, flow, status).increment();
      Duration took = duration(state);
      if (took != null) {
        duration(r, flow, status).record(took);
      }
    }
  }

  private static Counter started(MeterRegistry r, String flow) {
    return Counter.builder("taskmesh.tasks.started")
        .description(
            "Tasks created (counted by the replica that folds the task); not _created: OpenMetrics reserves that suffix")
        .tag("flow", flow)
        .register(r);
  }

  private static Counter finished(MeterRegistry r, String flow, String status) {
    return Counter.builder("taskmesh.tasks.finished")
        .description("Tasks that reached a final status")
        .tag("flow", flow)
        .tag("status", status)
        .register(r);
  }

  private static Timer duration(MeterRegistry r, String flow, String status) {
    return Timer.builder("taskmesh.task.duration")
        .description("Time from a task's creation to its final status")
        .tag("flow", flow)
        .tag("status", status)
        .serviceLevelObjectives(DURATION_BUCKETS)
        .register(r);
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

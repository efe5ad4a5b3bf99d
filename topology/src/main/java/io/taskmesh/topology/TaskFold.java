package io.taskmesh.topology;

import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The task state machine as a pure function: (state, event) -> new state and the update it
 * emits, or empty when the event changes nothing (duplicate, stale, for an unknown task, or
 * after a terminal status).
 */
public final class TaskFold {
  /** How many updates a task keeps for SSE replay, and how many event ids for de-duplication. */
  static final int MAX_HISTORY = 256;
  static final int MAX_EVENT_IDS = 64;

  public record Result(TaskState state, TaskUpdate update) {}

  private TaskFold() {}

  public static Optional<Result> apply(TaskState state, TaskEvent event) {
    if (state != null && state.recentEventIds().contains(event.eventId())) {
      return Optional.empty();
    }
    return switch (event.type()) {
      case TaskEvent.CREATED -> state == null ? Optional.of(create(event)) : Optional.empty();
      case TaskEvent.PROGRESS -> state == null || state.isFinal() ? Optional.empty() : progress(state, event);
      case TaskEvent.FINAL -> state == null || state.isFinal() ? Optional.empty() : finish(state, event);
      default -> Optional.empty();
    };
  }

  private static Result create(TaskEvent event) {
    TaskEvent.Created c = event.created();
    Route route = c.route();
    String now = event.timestamp();
    TaskUpdate update = new TaskUpdate(event.taskId(), 1, TaskStatus.PENDING, 0.0, 0, null,
        route.curr(), route.actors(), "Task created", null, null, now);
    TaskState state = new TaskState(event.taskId(), c.parentId(), c.contextId(), c.flow(), c.owner(),
        TaskStatus.PENDING, "Task created", null, null, route, c.payload(), 0.0, 0, route.curr(), 0,
        route.totalActors(), now, now, c.deadlineAt(), 1, List.of(update), List.of(event.eventId()));
    return new Result(state, update);
  }

  private static Optional<Result> progress(TaskState s, TaskEvent event) {
    ProgressReport r = event.progress();
    double percent = Progress.percent(r);
    if (percent <= s.progressPercent() && TaskStatus.RUNNING.equals(s.status())) {
      return Optional.empty(); // stale or duplicate: progress never decreases
    }
    percent = Math.max(percent, s.progressPercent());
    List<String> actors;
    int idx;
    if (r.indexForm()) {
      actors = List.copyOf(r.actors());
      idx = r.currentActorIdx();
    } else {
      actors = new Route(r.prev(), r.curr(), r.next()).actors();
      idx = r.prev() == null ? 0 : r.prev().size();
    }
    String actor = idx < actors.size() ? actors.get(idx) : null;
    int completed = idx + ("completed".equals(r.status()) ? 1 : 0);
    String message = r.message() != null ? r.message() : actor + ": " + r.status();
    long seq = s.seq() + 1;
    TaskUpdate update = new TaskUpdate(s.id(), seq, TaskStatus.RUNNING, percent, idx, r.status(),
        actor, actors, message, null, null, event.timestamp());
    TaskState next = new TaskState(s.id(), s.parentId(), s.contextId(), s.flow(), s.owner(),
        TaskStatus.RUNNING, message, null, null, s.route(), s.payload(), percent, idx, actor,
        Math.max(completed, s.actorsCompleted()), actors.size(), s.createdAt(), event.timestamp(),
        s.deadlineAt(), seq, append(s.history(), update, MAX_HISTORY),
        append(s.recentEventIds(), event.eventId(), MAX_EVENT_IDS));
    return Optional.of(new Result(next, update));
  }

  private static Optional<Result> finish(TaskState s, TaskEvent event) {
    FinalReport f = event.finalReport();
    String status = f.status();
    if (!TaskStatus.SUCCEEDED.equals(status) && !TaskStatus.FAILED.equals(status)) {
      throw new IllegalArgumentException("final: 'status' must be succeeded or failed, not '" + status + "'");
    }
    boolean ok = TaskStatus.SUCCEEDED.equals(status);
    double percent = ok ? 100.0 : s.progressPercent();
    String message = ok ? "Task completed" : "Task failed: " + (f.error() == null ? "unknown error" : f.error());
    String actorName = f.currentActorName() != null ? f.currentActorName() : s.currentActorName();
    long seq = s.seq() + 1;
    TaskUpdate update = new TaskUpdate(s.id(), seq, status, percent, null, null, null, null, message,
        ok ? f.result() : null, ok ? null : f.error(), event.timestamp());
    TaskState next = new TaskState(s.id(), s.parentId(), s.contextId(), s.flow(), s.owner(), status,
        message, ok ? f.result() : null, ok ? null : f.error(), s.route(), s.payload(), percent,
        s.currentActorIdx(), actorName, ok ? s.totalActors() : s.actorsCompleted(), s.totalActors(),
        s.createdAt(), event.timestamp(), s.deadlineAt(), seq, append(s.history(), update, MAX_HISTORY),
        append(s.recentEventIds(), event.eventId(), MAX_EVENT_IDS));
    return Optional.of(new Result(next, update));
  }

  private static <T> List<T> append(List<T> list, T item, int max) {
    List<T> out = new ArrayList<>(list.size() + 1);
    out.addAll(list.size() >= max ? list.subList(list.size() - max + 1, list.size()) : list);
    out.add(item);
    return out;
  }
}

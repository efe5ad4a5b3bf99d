package io.taskmesh.topology;

import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Progress;
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
 *
 * <p>Transitions (first spec, "Transitions (gateway task)"): {@code created}/{@code child_created}
 * -> pending; progress: pending|running -> running (progress never decreases); {@code final}:
 * pending|running|paused -> succeeded|failed; {@code paused}: pending|running -> paused;
 * {@code canceled}: any non-final -> canceled; {@code deadline_expired}: any non-final -> failed
 * with a timeout error; {@code resumed}: paused -> running (the gateway records it before it hands
 * the new input to x-pause). Progress while paused is ignored (mesh-api's order pending < running
 * < paused < terminal says running never overwrites paused; only a resume leaves paused). Terminal
 * statuses (succeeded, failed, canceled) are never overwritten.
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
    if (state == null) {
      boolean creates = TaskEvent.CREATED.equals(event.type()) || TaskEvent.CHILD_CREATED.equals(event.type());
      return creates ? Optional.of(create(event)) : Optional.empty();
    }
    if (state.isFinal()) {
      return Optional.empty();
    }
    return switch (event.type()) {
      case TaskEvent.PROGRESS -> TaskStatus.PAUSED.equals(state.status()) ? Optional.empty() : progress(state, event);
      case TaskEvent.FINAL -> Optional.of(finish(state, event));
      case TaskEvent.PAUSED -> TaskStatus.PAUSED.equals(state.status()) ? Optional.empty() : Optional.of(pause(state, event));
      case TaskEvent.CANCELED -> Optional.of(cancel(state, event));
      case TaskEvent.RESUMED -> TaskStatus.PAUSED.equals(state.status()) ? Optional.of(resume(state, event)) : Optional.empty();
      case TaskEvent.DEADLINE_EXPIRED -> Optional.of(expire(state, event));
      default -> Optional.empty(); // created again, or a type this version does not know
    };
  }

  private static Result create(TaskEvent event) {
    TaskEvent.Created c = event.created();
    if (c == null || c.route() == null) {
      throw new IllegalArgumentException(event.type() + ": 'created.route' is required");
    }
    Route route = c.route();
    String now = event.timestamp();
    String message = TaskEvent.CHILD_CREATED.equals(event.type()) ? "Child task created" : "Task created";
    TaskUpdate update = new TaskUpdate(event.taskId(), 1, TaskStatus.PENDING, 0.0, 0, null,
        route.curr(), route.actors(), message, null, null, now);
    TaskState state = new TaskState(event.taskId(), c.parentId(), c.contextId(), c.flow(), c.owner(),
        TaskStatus.PENDING, message, null, null, route, c.payload(), 0.0, 0, route.curr(), 0,
        route.totalActors(), now, now, c.deadlineAt(), 1, List.of(update), List.of(event.eventId()));
    return new Result(state, update);
  }

  private static Optional<Result> progress(TaskState s, TaskEvent event) {
    ProgressReport r = event.progress();
    if (r == null) {
      throw new IllegalArgumentException("progress: 'progress' is required");
    }
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
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, TaskStatus.RUNNING, percent, idx, r.status(),
        actor, actors, message, null, null, event.timestamp());
    return Optional.of(next(s, event, update, null, null, percent, idx, actor,
        Math.max(completed, s.actorsCompleted()), actors.size()));
  }

  private static Result finish(TaskState s, TaskEvent event) {
    FinalReport f = event.finalReport();
    String status = f == null ? null : f.status();
    if (!TaskStatus.SUCCEEDED.equals(status) && !TaskStatus.FAILED.equals(status)) {
      throw new IllegalArgumentException("final: 'status' must be succeeded or failed, not '" + status + "'");
    }
    boolean ok = TaskStatus.SUCCEEDED.equals(status);
    double percent = ok ? 100.0 : s.progressPercent();
    String message = ok ? "Task completed" : "Task failed: " + (f.error() == null ? "unknown error" : f.error());
    String actorName = f.currentActorName() != null ? f.currentActorName() : s.currentActorName();
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, status, percent, null, null, null, null, message,
        ok ? f.result() : null, ok ? null : f.error(), event.timestamp());
    return next(s, event, update, ok ? f.result() : null, ok ? null : f.error(), percent,
        s.currentActorIdx(), actorName, ok ? s.totalActors() : s.actorsCompleted(), s.totalActors());
  }

  private static Result pause(TaskState s, TaskEvent event) {
    FinalReport f = event.finalReport();
    String actor = f != null && f.currentActorName() != null ? f.currentActorName() : s.currentActorName();
    String message = "Task paused" + (actor == null ? "" : " by " + actor);
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, TaskStatus.PAUSED, s.progressPercent(),
        s.currentActorIdx(), null, actor, null, message, null, null, event.timestamp());
    return next(s, event, update, null, null, s.progressPercent(), s.currentActorIdx(), actor,
        s.actorsCompleted(), s.totalActors());
  }

  private static Result resume(TaskState s, TaskEvent event) {
    String message = "Task resumed" + (event.reason() == null || event.reason().isBlank() ? "" : ": " + event.reason());
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, TaskStatus.RUNNING, s.progressPercent(),
        s.currentActorIdx(), null, s.currentActorName(), null, message, null, null, event.timestamp());
    return next(s, event, update, null, null, s.progressPercent(), s.currentActorIdx(), s.currentActorName(),
        s.actorsCompleted(), s.totalActors());
  }

  private static Result cancel(TaskState s, TaskEvent event) {
    String message = "Task canceled" + (event.reason() == null || event.reason().isBlank() ? "" : ": " + event.reason());
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, TaskStatus.CANCELED, s.progressPercent(), null,
        null, null, null, message, null, null, event.timestamp());
    return next(s, event, update, null, null, s.progressPercent(), s.currentActorIdx(), s.currentActorName(),
        s.actorsCompleted(), s.totalActors());
  }

  private static Result expire(TaskState s, TaskEvent event) {
    String error = event.reason() != null ? event.reason() : "timeout: no final report by " + s.deadlineAt();
    TaskUpdate update = new TaskUpdate(s.id(), s.seq() + 1, TaskStatus.FAILED, s.progressPercent(), null,
        null, null, null, "Task failed: " + error, null, error, event.timestamp());
    return next(s, event, update, null, error, s.progressPercent(), s.currentActorIdx(), s.currentActorName(),
        s.actorsCompleted(), s.totalActors());
  }

  /** The state after {@code update}: its status, message and timestamp, plus the given fields. */
  private static Result next(TaskState s, TaskEvent event, TaskUpdate update, com.fasterxml.jackson.databind.JsonNode result,
      String error, double percent, int idx, String actorName, int completed, int total) {
    TaskState state = new TaskState(s.id(), s.parentId(), s.contextId(), s.flow(), s.owner(), update.status(),
        update.message(), result, error, s.route(), s.payload(), percent, idx, actorName, completed, total,
        s.createdAt(), event.timestamp(), s.deadlineAt(), update.seq(), append(s.history(), update, MAX_HISTORY),
        append(s.recentEventIds(), event.eventId(), MAX_EVENT_IDS));
    return new Result(state, update);
  }

  private static <T> List<T> append(List<T> list, T item, int max) {
    List<T> out = new ArrayList<>(list.size() + 1);
    out.addAll(list.size() >= max ? list.subList(list.size() - max + 1, list.size()) : list);
    out.add(item);
    return out;
  }
}

package io.taskmesh.topology;

import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Progress;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Topics;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The task state machine as a pure function: (state, event) -> new state and the update it emits,
 * or empty when the event changes nothing (duplicate, stale, for an unknown task, or after a
 * terminal status).
 *
 * <p>Transitions (first spec, "Transitions (gateway task)"): {@code created}/{@code child_created}
 * -> pending; progress: pending|running -> running (progress never decreases); {@code final}:
 * pending|running|paused -> succeeded|failed; {@code paused}: pending|running -> paused; {@code
 * canceled}: any non-final -> canceled; {@code deadline_expired}: any non-final -> failed with a
 * timeout error; {@code resumed}: paused -> running (the gateway records it before it hands the new
 * input to x-pause). Progress while paused is ignored (mesh-api's order pending < running < paused
 * < terminal says running never overwrites paused; only a resume leaves paused). Terminal statuses
 * (succeeded, failed, canceled) are never overwritten.
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
      boolean creates =
          TaskEvent.CREATED.equals(event.type()) || TaskEvent.CHILD_CREATED.equals(event.type());
      return creates ? Optional.of(create(event)) : Optional.empty();
    }
    if (state.isFinal()) {
      return Optional.empty();
    }
    boolean paused = state.status() == TaskStatus.PAUSED;
    return switch (event.type()) {
      case TaskEvent.PROGRESS -> paused ? Optional.empty() : progress(state, event);
      case TaskEvent.FINAL -> Optional.of(finish(state, event));
      case TaskEvent.PAUSED -> paused ? Optional.empty() : Optional.of(pause(state, event));
      case TaskEvent.CANCELED -> Optional.of(cancel(state, event));
      case TaskEvent.RESUMED -> paused ? Optional.of(resume(state, event)) : Optional.empty();
      case TaskEvent.DEADLINE_EXPIRED -> Optional.of(expire(state, event));
      default -> Optional.empty(); // created again, or a type this version does not know
    };
  }

  /** (none) -> pending, at the route's first actor. */
  private static Result create(TaskEvent event) {
    TaskEvent.Created c = event.created();
    if (c == null || c.route() == null) {
      throw new IllegalArgumentException(event.type() + ": 'created.route' is required");
    }
    Route route = c.route();
    String message =
        TaskEvent.CHILD_CREATED.equals(event.type()) ? "Child task created" : "Task created";
    // a fan-out child starts part-way along its route: its actor index counts the actors before it
    TaskUpdate update =
        TaskUpdate.of(event.taskId(), 1, TaskStatus.PENDING, message, event.timestamp())
            .withProgress(0.0)
            .withActorIdx(route.prev().size())
            .withActor(route.curr())
            .withActors(route.actors());
    return new Result(TaskState.created(event.taskId(), c, update, event.eventId()), update);
  }

  /**
   * pending|running -> running, at the reporting actor. The report carries the task's current
   * route, which a handler may have extended: a report is newer when it stands further along the
   * route (a later actor, or the same actor in a later state), not when its percentage is higher,
   * since the percentage of a grown route can be lower. The shown percentage never decreases.
   */
  private static Optional<Result> progress(TaskState s, TaskEvent event) {
    ProgressReport r = event.progress();
    if (r == null) {
      throw new IllegalArgumentException("progress: 'progress' is required");
    }
    double percent = Progress.percent(r);
    Route route =
        r.indexForm()
            ? routeAt(r.actors(), r.currentActorIdx())
            : new Route(r.prev(), r.curr(), r.next());
    int idx = route.prev().size();
    ActorState actorState = ActorState.find(r.status()).orElseThrow(); // checked by percent()
    if (s.status() == TaskStatus.RUNNING && !furtherAlong(idx, actorState, s)) {
      return Optional
          .empty(); // stale or duplicate: an earlier point of the route than the one shown
    }
    percent = Math.max(percent, s.progressPercent());
    List<String> actors = route.actors();
    String actor = idx < actors.size() ? actors.get(idx) : null;
    int completed = idx + (actorState == ActorState.COMPLETED ? 1 : 0);
    String message = r.message() != null ? r.message() : actor + ": " + r.status();
    TaskUpdate update =
        next(s, TaskStatus.RUNNING, message, event)
            .withProgress(percent)
            .withActorIdx(idx)
            .withActorState(r.status())
            .withActor(actor)
            .withActors(actors);
    TaskState at =
        s.withRoute(route)
            .withCurrentActor(idx, actor, actorState.wire())
            .withActorsCompleted(Math.max(completed, s.actorsCompleted()))
            .withTotalActors(actors.size());
    return Optional.of(apply(at, update, event));
  }

  /** The index form's route: the actors before {@code idx}, the one at it, the ones after. */
  private static Route routeAt(List<String> actors, int idx) {
    return new Route(
        actors.subList(0, idx), actors.get(idx), actors.subList(idx + 1, actors.size()));
  }

  /** Whether (actor index, actor state) comes after the point the task has reached. */
  private static boolean furtherAlong(int idx, ActorState actorState, TaskState s) {
    if (idx != s.currentActorIdx()) {
      return idx > s.currentActorIdx();
    }
    ActorState shown =
        s.currentActorState() == null ? null : ActorState.find(s.currentActorState()).orElse(null);
    return shown == null || actorState.weight() > shown.weight();
  }

  /**
   * The index in the task's route of {@code name}, the actor that spoke last: the current index
   * when it is the current actor, else its last place in the route. Crew actors are not in the
   * route: x-pause stands where the next actor will, at index {@code actors_completed}; x-sink and
   * x-sump stand after the route, at index {@code total_actors}.
   */
  private static int indexOf(TaskState s, String name) {
    if (name == null || name.equals(s.currentActorName())) {
      return s.currentActorIdx();
    }
    if (Topics.PAUSE.equals(name)) {
      return s.actorsCompleted();
    }
    List<String> actors = s.route() == null ? List.of() : s.route().actors();
    int at = actors.lastIndexOf(name);
    return at >= 0 ? at : actors.size();
  }

  /** -> succeeded (progress 100, every actor done, the result) or failed (the error). */
  private static Result finish(TaskState s, TaskEvent event) {
    FinalReport f = event.finalReport();
    TaskStatus status = f == null ? null : f.status();
    if (status == null || !status.isOutcome()) {
      throw new IllegalArgumentException(
          "final: 'status' must be succeeded or failed, not '" + status + "'");
    }
    boolean ok = status == TaskStatus.SUCCEEDED;
    String message =
        ok ? "Task completed" : "Task failed: " + (f.error() == null ? "unknown error" : f.error());
    TaskUpdate update =
        next(s, status, message, event)
            .withProgress(ok ? 100.0 : s.progressPercent())
            .withResult(ok ? f.result() : null)
            .withError(ok ? null : f.error())
            .withErrorDetails(ok ? null : f.errorDetails());
    // a failure names the actor whose handler failed, not x-sink, which only reported it
    String failedAt = ok || f.errorDetails() == null ? null : f.errorDetails().actor();
    String actor =
        failedAt != null
            ? failedAt
            : f.currentActorName() != null ? f.currentActorName() : s.currentActorName();
    TaskState at =
        s.withCurrentActor(indexOf(s, actor), actor, s.currentActorState())
            .withActorsCompleted(ok ? s.totalActors() : s.actorsCompleted());
    if (ok && s.route() != null) { // every actor ran: the route is exhausted
      at = at.withRoute(new Route(s.route().actors(), "", List.of()));
    }
    return apply(at, update, event);
  }

  /** pending|running -> paused, by the actor that paused it. */
  private static Result pause(TaskState s, TaskEvent event) {
    FinalReport f = event.finalReport();
    String actor =
        f != null && f.currentActorName() != null ? f.currentActorName() : s.currentActorName();
    // the handler's question is what the caller must read to answer: it is the message
    String question = f == null ? null : f.question();
    String message =
        question != null ? question : "Task paused" + (actor == null ? "" : " by " + actor);
    int idx = indexOf(s, actor);
    TaskUpdate update =
        next(s, TaskStatus.PAUSED, message, event)
            .withProgress(s.progressPercent())
            .withActorIdx(idx)
            .withActor(actor)
            .withQuestion(question)
            .withInputRequests(f == null ? null : f.inputRequests());
    // no actor has reported at the paused position yet: the next actor's first report is newer
    return apply(s.withCurrentActor(idx, actor, null), update, event);
  }

  /** paused -> running, at the same actor. */
  private static Result resume(TaskState s, TaskEvent event) {
    String message =
        "Task resumed"
            + (event.reason() == null || event.reason().isBlank() ? "" : ": " + event.reason());
    TaskUpdate update =
        next(s, TaskStatus.RUNNING, message, event)
            .withProgress(s.progressPercent())
            .withActorIdx(s.currentActorIdx())
            .withActor(s.currentActorName());
    return apply(s, update, event);
  }

  /** any non-final -> canceled. */
  private static Result cancel(TaskState s, TaskEvent event) {
    String message =
        "Task canceled"
            + (event.reason() == null || event.reason().isBlank() ? "" : ": " + event.reason());
    return apply(
        s, next(s, TaskStatus.CANCELED, message, event).withProgress(s.progressPercent()), event);
  }

  /** any non-final -> failed with a timeout error. */
  private static Result expire(TaskState s, TaskEvent event) {
    String error =
        event.reason() != null ? event.reason() : "timeout: no final report by " + s.deadlineAt();
    TaskUpdate update =
        next(s, TaskStatus.FAILED, "Task failed: " + error, event)
            .withProgress(s.progressPercent())
            .withError(error);
    return apply(s, update, event);
  }

  /** The task's next update (seq + 1) to {@code status}, at the event's time. */
  private static TaskUpdate next(TaskState s, TaskStatus status, String message, TaskEvent event) {
    return TaskUpdate.of(s.id(), s.seq() + 1, status, message, event.timestamp());
  }

  /**
   * {@code s} after {@code update}, which joins the bounded history; the event id is remembered.
   */
  private static Result apply(TaskState s, TaskUpdate update, TaskEvent event) {
    TaskState state =
        s.withUpdate(update)
            .withHistory(append(s.history(), update, MAX_HISTORY))
            .withRecentEventIds(append(s.recentEventIds(), event.eventId(), MAX_EVENT_IDS));
    return new Result(state, update);
  }

  private static <T> List<T> append(List<T> list, T item, int max) {
    List<T> out = new ArrayList<>(list.size() + 1);
    out.addAll(list.size() >= max ? list.subList(list.size() - max + 1, list.size()) : list);
    out.add(item);
    return out;
  }
}

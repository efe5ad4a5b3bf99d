package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.gateway.follow.TaskOwners;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskQueries;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/** Task reads of the A2A edge: a caller sees only its own tasks. */
final class OwnedTasks {
  private final TaskQueries queries;
  private final TaskFollower follower;

  OwnedTasks(TaskQueries queries, TaskFollower follower) {
    this.queries = queries;
    this.follower = follower;
  }

  /**
   * Completes with the task's state once it satisfies {@code until}; after {@code timeoutMs} (0 =
   * no limit) with whatever state it has then, or TaskNotFound when it has none. The caller checked
   * that the task is its own before waiting.
   */
  CompletableFuture<TaskState> until(String id, Predicate<TaskState> until, long timeoutMs) {
    return follower
        .until(id, TaskFollower.anyOwner(), until, Duration.ofMillis(timeoutMs))
        .thenApply(found -> found.orElseThrow(() -> A2aException.taskNotFound(id)));
  }

  /** The task when it exists and belongs to the caller; TaskNotFound otherwise (no difference). */
  TaskState visible(String id, String principal) {
    Optional<TaskState> s = queries.get(id);
    if (s.isEmpty() || !TaskOwners.visibleTo(s.get(), principal)) {
      throw A2aException.taskNotFound(id);
    }
    return s.get();
  }

  /** The stored state, or empty while it is not readable (not folded yet, view rebalancing). */
  Optional<TaskState> read(String id) {
    try {
      return queries.get(id);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  /**
   * The caller's tasks in {@code contextId} that wait for input (paused: input-required), oldest
   * first. An unreadable view answers none: the message then starts a task, as it would have.
   */
  List<TaskState> waitingIn(String contextId, String principal) {
    List<TaskState> owned;
    try {
      owned = queries.tasksOf(principal);
    } catch (RuntimeException e) {
      return List.of();
    }
    return owned.stream()
        .filter(t -> contextId.equals(A2aTasks.contextId(t)))
        .filter(t -> t.status() == TaskStatus.PAUSED)
        .sorted(
            Comparator.comparing(TaskState::createdAt, Comparator.nullsFirst(String::compareTo)))
        .toList();
  }
}

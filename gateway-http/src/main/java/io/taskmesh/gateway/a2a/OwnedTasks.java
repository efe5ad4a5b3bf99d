package io.taskmesh.gateway.a2a;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskQueries;
import java.util.Objects;
import java.util.Optional;

/** Task reads of the A2A edge: a caller sees only its own tasks. */
final class OwnedTasks {
  private final TaskQueries queries;

  OwnedTasks(TaskQueries queries) {
    this.queries = queries;
  }

  /** The task when it exists and belongs to the caller; TaskNotFound otherwise (no difference). */
  TaskState visible(String id, String principal) {
    Optional<TaskState> s = queries.get(id);
    if (s.isEmpty() || !Objects.equals(s.get().owner(), principal)) {
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
}

package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import java.util.List;
import java.util.Optional;

/** The read side the HTTP layer sees: the folded state of one task. */
public interface TaskQueries {
  /**
   * The task, or empty when no task has that id; asks the replica that owns the key when that is
   * not this one.
   *
   * @throws ViewUnavailableException while the store is rebalancing or restoring, or the owner
   *     cannot be reached
   */
  Optional<TaskState> get(String taskId);

  /**
   * As {@link #get}, for a reader that acts on the state only: the history may be left out (an
   * empty list), which spares reading it. A replica that forwards to another owner may still return
   * it whole.
   */
  default Optional<TaskState> getWithoutHistory(String taskId) {
    return get(taskId);
  }

  /**
   * The task from this replica's own store only (what an owner answers to a forwarded query).
   *
   * @throws ViewUnavailableException when this replica is not (or not yet) the key's owner
   */
  default Optional<TaskState> getLocal(String taskId) {
    return get(taskId);
  }

  /**
   * Whether this replica owns the task's key in the fold (answers it from its own store); empty
   * while that is not known (rebalancing, not running). A single replica owns every key.
   */
  default Optional<Boolean> ownsLocally(String taskId) {
    return Optional.of(true);
  }

  /**
   * The tasks of one owner (null: tasks created without one) in this replica's own store only (what
   * a replica answers to a forwarded listing).
   *
   * @throws ViewUnavailableException while the store is rebalancing or restoring
   */
  List<TaskState> localTasksOf(String owner);

  /**
   * The tasks of one owner on every replica: this one's store and each other replica's answer.
   *
   * @throws ViewUnavailableException while a store moves or a replica cannot be reached
   */
  List<TaskState> tasksOf(String owner);
}

package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import java.util.Optional;

/** The read side the HTTP layer sees: the folded state of one task. */
public interface TaskQueries {
  /**
   * The task, or empty when no task has that id.
   *
   * @throws ViewUnavailableException while the store is rebalancing or restoring
   */
  Optional<TaskState> get(String taskId);
}

package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;

/** The write side the HTTP layer sees: append one event to the task log. */
public interface TaskCommands {
  /**
   * Appends the event and returns once the log has it.
   *
   * @throws EventLogException when the log cannot be written
   */
  void append(TaskEvent event);

  /**
   * Cancels a task (A2A {@code tasks/cancel}): appends a {@code canceled} event. A task that is
   * already final, or unknown, stays as it is (the fold ignores the event).
   *
   * @throws EventLogException when the log cannot be written
   */
  default void cancel(String taskId, String reason) {
    append(TaskEvent.canceled(taskId, reason));
  }
}

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
}

package io.taskmesh.topology;

import io.taskmesh.schemas.TaskUpdate;
import java.util.function.Consumer;

/** Live task updates, pushed to in-process subscribers of one task id. */
public interface UpdateFeed {
  /** Subscribes; the listener must not block. Close the returned handle to unsubscribe. */
  AutoCloseable subscribe(String taskId, Consumer<TaskUpdate> listener);

  /**
   * Subscribes to the updates of every task (a live task list); the listener must not block.
   *
   * @throws UnsupportedOperationException a feed that serves one task at a time
   */
  default AutoCloseable subscribeAll(Consumer<TaskUpdate> listener) {
    throw new UnsupportedOperationException("this update feed serves one task at a time");
  }
}

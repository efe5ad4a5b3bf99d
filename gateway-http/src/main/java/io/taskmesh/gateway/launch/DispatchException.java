package io.taskmesh.gateway.launch;

/**
 * An envelope (or a resume record) could not be handed to its queue topic. Kept apart from the task
 * log's {@code EventLogException}: the event was written, the queue refused the work. The HTTP edge
 * answers it as it answers a task log failure.
 */
public final class DispatchException extends RuntimeException {
  public DispatchException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.taskmesh.topology;

/** The task event log (Kafka) could not be written. */
public final class EventLogException extends RuntimeException {
  public EventLogException(String message, Throwable cause) {
    super(message, cause);
  }
}

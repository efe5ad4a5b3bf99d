package io.taskmesh.topology;

/** The task view cannot answer right now (starting, rebalancing); the caller may retry. */
public final class ViewUnavailableException extends RuntimeException {
  public ViewUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}

package io.taskmesh.cli.client;

/**
 * A failure a person can act on, said in one line; {@link #exitCode} is what the command exits
 * with.
 */
public final class ClientException extends RuntimeException {
  /** Arguments that the flow's schema refuses, or a bad option value. */
  public static final int INVALID_INPUT = 2;

  /** The gateway refused the request or could not be reached. */
  public static final int GATEWAY = 3;

  private final int exitCode;

  public ClientException(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public ClientException(int exitCode, String message, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}

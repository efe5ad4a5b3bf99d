package io.taskmesh.cli;

/**
 * A command that cannot go on for a reason the user can act on: printed as one line ({@code
 * taskmesh: ...}) on stderr, never as a stack trace, and the process exits with {@link #exitCode}.
 */
final class CliFailure extends RuntimeException {
  private final int exitCode;

  CliFailure(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}

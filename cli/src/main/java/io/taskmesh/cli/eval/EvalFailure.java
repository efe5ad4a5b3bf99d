package io.taskmesh.cli.eval;

/**
 * replay-eval cannot go on for a reason the user can act on: one line on stderr, and this exit code
 * (2 options or input refused, 3 the cluster or the candidate could not be reached).
 */
public final class EvalFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final int exitCode;

  public EvalFailure(int exitCode, String message) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}

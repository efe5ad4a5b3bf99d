package io.taskmesh.sidecar;

import java.time.Duration;
import java.util.List;

/**
 * Resiliency policy for {@code processing_error}: at most {@code maxAttempts} calls, exponential
 * backoff from {@code backoff}, and only for errors whose type or one of whose {@code mro} entries
 * is listed in {@code retryOn} (an empty list retries every processing error).
 */
record RetryPolicy(int maxAttempts, Duration backoff, List<String> retryOn) {
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  boolean retries(InvokeResult.RuntimeError err, int attempt) {
    if (err.parsingError() || attempt >= maxAttempts) {
      return false;
    }
    return retryOn.isEmpty() || matches(err.type()) || err.mro().stream().anyMatch(this::matches);
  }

  /** backoff x 2^(attempt-1), capped at 30 s. */
  Duration backoff(int attempt) {
    long ms = backoff.toMillis() << Math.min(20, attempt - 1);
    return ms > MAX_BACKOFF.toMillis() || ms < 0 ? MAX_BACKOFF : Duration.ofMillis(ms);
  }

  /**
   * Whether a reported class name (the error's {@code type} or one of its {@code mro} entries) is
   * listed. Runtimes differ in how they name classes: ours and the reference runtime report
   * builtins bare ("ValueError") and other classes qualified ("mod.MyError"), while a user may list
   * either form. So a leading "builtins." is dropped on both sides, equal names match, and when one
   * side is bare the last segments are compared. "BaseException" matches every error, because the
   * reference runtime's {@code mro} leaves it out although every Python exception derives from it.
   */
  private boolean matches(String type) {
    if (type == null || type.isEmpty()) {
      return false;
    }
    String reported = withoutBuiltins(type);
    for (String listed : retryOn) {
      String wanted = withoutBuiltins(listed);
      if (wanted.equals("BaseException") || wanted.equals(reported)) {
        return true;
      }
      boolean eitherBare = wanted.indexOf('.') < 0 || reported.indexOf('.') < 0;
      if (eitherBare && lastSegment(wanted).equals(lastSegment(reported))) {
        return true;
      }
    }
    return false;
  }

  private static String withoutBuiltins(String name) {
    return name.startsWith("builtins.") ? name.substring("builtins.".length()) : name;
  }

  private static String lastSegment(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }
}

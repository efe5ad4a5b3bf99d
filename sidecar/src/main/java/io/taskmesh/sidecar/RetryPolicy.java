package io.taskmesh.sidecar;

import java.time.Duration;
import java.util.List;

/**
 * Resiliency policy for {@code processing_error}: at most {@code maxAttempts} calls, exponential
 * backoff from {@code backoff}, and only for errors whose type or one of whose {@code mro}
 * entries is listed in {@code retryOn} (an empty list retries every processing error).
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

  /** Matches the bare name or the qualified one ("ValueError", "builtins.ValueError", "mod.MyError"). */
  private boolean matches(String type) {
    if (type == null || type.isEmpty()) {
      return false;
    }
    String bare = type.substring(type.lastIndexOf('.') + 1);
    return retryOn.contains(type) || retryOn.contains(bare);
  }
}

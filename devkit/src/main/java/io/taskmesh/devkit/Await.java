package io.taskmesh.devkit;

import java.time.Duration;
import java.util.function.Predicate;

/**
 * Waiting in tests for something that happens on another thread or process (a fold, a poll, a
 * reconnect) and has no event to wait on from outside: poll the condition every few milliseconds
 * until it holds or the timeout passes, then fail with the caller's message.
 */
public final class Await {
  /** Short: a condition met between two polls is seen within this. */
  static final Duration POLL = Duration.ofMillis(20);

  /** A check that may throw (an HTTP call); an exception counts as "not yet". */
  @FunctionalInterface
  public interface Check {
    boolean holds() throws Exception;
  }

  /** Reads a value that may throw (an HTTP call); an exception counts as "not yet". */
  @FunctionalInterface
  public interface Probe<T> {
    T read() throws Exception;
  }

  private Await() {}

  /**
   * Returns once {@code condition} holds. @throws AssertionError with {@code message} after {@code
   * timeout}
   */
  public static void until(Check condition, Duration timeout, String message) {
    until(
        () -> condition.holds() ? Boolean.TRUE : Boolean.FALSE,
        Boolean.TRUE::equals,
        timeout,
        message);
  }

  /**
   * Reads {@code probe} until its value passes {@code ok} and returns that value.
   *
   * @throws AssertionError with {@code message} and the last value read after {@code timeout}
   */
  public static <T> T until(
      Probe<T> probe, Predicate<? super T> ok, Duration timeout, String message) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Object last = null;
    while (true) {
      try {
        T value = probe.read();
        if (ok.test(value)) {
          return value;
        }
        last = value;
      } catch (Exception e) {
        if (e instanceof InterruptedException) {
          Thread.currentThread().interrupt();
          throw new AssertionError(message + ": interrupted", e);
        }
        last = e;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(message + " (not within " + timeout + "; last: " + last + ")");
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(message + ": interrupted", e);
      }
    }
  }
}

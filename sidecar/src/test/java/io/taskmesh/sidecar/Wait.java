package io.taskmesh.sidecar;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition instead of sleeping. */
final class Wait {
  private Wait() {}

  static void until(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}

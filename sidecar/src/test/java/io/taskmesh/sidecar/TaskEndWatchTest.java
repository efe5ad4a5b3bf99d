package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class TaskEndWatchTest {
  private static final Envelope E =
      new Envelope("t1", null, Route.start("a", List.of()), null, Json.tree(Map.of()), Map.of());

  @Test
  void aCallWhoseTaskEndedIsAbandonedAndLeavesNoInterruptBehind() {
    TaskEndWatch watch = new TaskEndWatch(e -> true, Duration.ofMillis(20));
    InvokeResult r =
        watch.call(
            E,
            () -> {
              try {
                new CountDownLatch(1).await(); // a handler that never answers
                return new InvokeResult.Empty();
              } catch (InterruptedException stopped) {
                Thread.currentThread().interrupt(); // as a closed channel would leave it
                return new InvokeResult.Unavailable("connection closed");
              }
            });
    assertThat(r).isInstanceOf(InvokeResult.Abandoned.class);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aCallWhoseTaskGoesOnKeepsItsOwnAnswer() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    TaskEndWatch watch =
        new TaskEndWatch(
            e -> {
              checks.incrementAndGet();
              return false;
            },
            Duration.ofMillis(10));
    InvokeResult r =
        watch.call(
            E,
            () -> {
              waitFor(() -> checks.get() >= 3);
              return new InvokeResult.Empty();
            });
    assertThat(r).isInstanceOf(InvokeResult.Empty.class);
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void aShortCallIsNeverChecked() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    TaskEndWatch watch =
        new TaskEndWatch(
            e -> {
              checks.incrementAndGet();
              return true;
            },
            Duration.ofMinutes(1));
    assertThat(watch.call(E, InvokeResult.Empty::new)).isInstanceOf(InvokeResult.Empty.class);
    assertThat(checks).hasValue(0);
  }

  private static void waitFor(java.util.function.BooleanSupplier condition) {
    while (!condition.getAsBoolean()) {
      Thread.onSpinWait();
    }
  }
}

package io.taskmesh.devkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AwaitTest {
  @Test
  void returnsOnceTheConditionHolds() {
    AtomicInteger polls = new AtomicInteger();
    Await.until(() -> polls.incrementAndGet() >= 3, Duration.ofSeconds(5), "three polls");
    assertThat(polls).hasValue(3);
  }

  @Test
  void returnsTheFirstValueThatPasses() {
    AtomicInteger n = new AtomicInteger();
    assertThat(Await.until(n::incrementAndGet, v -> v == 4, Duration.ofSeconds(5), "four"))
        .isEqualTo(4);
  }

  @Test
  void anExceptionIsNotYetAndTheLastOneIsReported() {
    assertThatThrownBy(
            () ->
                Await.until(
                    () -> {
                      throw new IllegalStateException("down");
                    },
                    Duration.ofMillis(100),
                    "service up"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("service up")
        .hasMessageContaining("down");
  }

  @Test
  void failsWithTheMessageAndTheLastValueAfterTheTimeout() {
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> Await.until(() -> 7, v -> v == 8, Duration.ofMillis(200), "value 8"))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("value 8")
        .hasMessageContaining("last: 7");
    assertThat(Duration.ofNanos(System.nanoTime() - t0))
        .isGreaterThanOrEqualTo(Duration.ofMillis(200));
  }
}

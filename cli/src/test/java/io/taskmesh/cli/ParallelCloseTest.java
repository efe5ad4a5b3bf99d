package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ParallelCloseTest {
  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void aPartThatNeverStopsIsLeftBehindAndTheOthersStillClose() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    AtomicBoolean otherClosed = new AtomicBoolean();
    ParallelClose group = new ParallelClose("actors", Duration.ofMillis(200));
    group.add(never::await);
    group.add(() -> otherClosed.set(true));

    group.close();

    assertThat(otherClosed).isTrue();
    assertThat(never.getCount())
        .as("the stuck part is still stuck: close did not wait for it")
        .isOne();
  }

  @Test
  void partsCloseSideBySide() throws Exception {
    CountDownLatch both = new CountDownLatch(2);
    ParallelClose group = new ParallelClose("actors", Duration.ofSeconds(20));
    // each part waits for the other to have started closing: one after the other would deadlock
    for (int i = 0; i < 2; i++) {
      group.add(
          () -> {
            both.countDown();
            assertThat(both.await(10, TimeUnit.SECONDS)).isTrue();
          });
    }
    group.close();
    assertThat(both.getCount()).isZero();
  }
}

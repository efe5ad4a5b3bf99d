package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ChildWatchdogTest {
  private static Process sleeper() throws Exception {
    return new ProcessBuilder("sleep", "600").start();
  }

  @Test
  void whenItsPipeClosesItStopsTheChildrenItWasToldAboutAndLeavesTheOthersAlone() throws Exception {
    Process a = sleeper();
    Process b = sleeper();
    Process other = sleeper();
    try (ChildWatchdog watchdog = ChildWatchdog.start("test-watchdog")) {
      watchdog.watch(a.pid());
      watchdog.watch(b.pid());
      // closing the pipe is what the JVM's death (kill -9 included) does to it
      watchdog.close();

      assertThat(a.waitFor(60, TimeUnit.SECONDS)).as("a stopped").isTrue();
      assertThat(b.waitFor(60, TimeUnit.SECONDS)).as("b stopped").isTrue();
      assertThat(other.isAlive()).as("a child it was not told about runs on").isTrue();
    } finally {
      for (Process p : List.of(a, b, other)) {
        p.destroy();
        p.waitFor(60, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aChildThatIsGoneBeforeThePipeClosesIsNotSignalled() throws Exception {
    Process gone = sleeper();
    Process kept = sleeper();
    try (ChildWatchdog watchdog = ChildWatchdog.start("test-watchdog")) {
      watchdog.watch(gone.pid());
      gone.destroy();
      assertThat(gone.waitFor(60, TimeUnit.SECONDS)).isTrue();
      watchdog.watch(kept.pid());
      watchdog.close();

      assertThat(kept.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(ProcessHandle.of(watchdogPidOf(watchdog))).isEmpty();
    } finally {
      kept.destroy();
      kept.waitFor(60, TimeUnit.SECONDS);
    }
  }

  private static long watchdogPidOf(ChildWatchdog w) {
    return w.pid();
  }
}

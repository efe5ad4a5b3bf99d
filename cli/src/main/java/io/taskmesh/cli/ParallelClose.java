package io.taskmesh.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a group of independent parts at once, each on its own thread. The actors of a dev stack
 * each wait for their loop to finish its batch and for their Kafka clients to close, up to seconds
 * when the broker is already gone (Ctrl-C signals the broker too); one after the other, twelve
 * actors took minutes to stop, side by side they take as long as the slowest. A part that has not
 * stopped within {@link #WITHIN} is named and left behind, so one stuck part never keeps dev from
 * exiting (its processes go with dev's process group and its watchdog).
 */
// close() waits for its threads and may be interrupted; it is never used in try-with-resources
// (where that interrupt could be lost) but closed by the stack's closer, which reports it
@SuppressWarnings("try")
final class ParallelClose implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ParallelClose.class);

  static final Duration WITHIN = Duration.ofSeconds(20);

  private final String what;
  private final Duration within;
  private final List<AutoCloseable> parts = new ArrayList<>();

  ParallelClose(String what) {
    this(what, WITHIN);
  }

  ParallelClose(String what, Duration within) {
    this.what = what;
    this.within = within;
  }

  synchronized void add(AutoCloseable part) {
    parts.add(part);
  }

  @Override
  public void close() throws InterruptedException {
    List<AutoCloseable> toClose;
    synchronized (this) {
      toClose = List.copyOf(parts);
      parts.clear();
    }
    List<Thread> closing = new ArrayList<>();
    for (AutoCloseable part : toClose) {
      Thread t =
          new Thread(
              () -> {
                try {
                  part.close();
                } catch (Exception e) {
                  LOG.warn("stopping one of the {} failed: {}", what, e.toString());
                }
              },
              "close-" + what);
      t.setDaemon(true);
      t.start();
      closing.add(t);
    }
    long deadline = System.nanoTime() + within.toNanos();
    List<String> stuck = new ArrayList<>();
    for (int i = 0; i < closing.size(); i++) {
      long left = deadline - System.nanoTime();
      closing.get(i).join(Math.max(1, left / 1_000_000));
      if (closing.get(i).isAlive()) {
        stuck.add(toClose.get(i).toString());
      }
    }
    if (!stuck.isEmpty()) {
      LOG.warn(
          "{} did not stop within {} ms, left to stop with dev: {}",
          what,
          within.toMillis(),
          stuck);
    }
  }
}

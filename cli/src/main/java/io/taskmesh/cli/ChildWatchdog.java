package io.taskmesh.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure the children a short-lived command starts (replay-eval's state connectors) do not
 * outlive it, as {@link DevChildren} does for dev, but for named children only: a watchdog ({@code
 * sh}, {@code child-watchdog.sh}) reads "pid start-ticks" lines from a pipe of this JVM and, when
 * the pipe closes, stops those still running (TERM, KILL after 10 s). The pipe closes when the JVM
 * exits however it exits (kill -9 too), or when {@link #close} is called after the command stopped
 * its children itself, which leaves it nothing to do. Pids are told one by one ({@link #watch}), so
 * a connector restarted under a new pid is covered too, and any other child is left alone.
 */
final class ChildWatchdog implements AutoCloseable {
  private static final Duration GRACE = Duration.ofSeconds(15);

  private final Process watchdog;
  private final OutputStream pipe;
  private boolean closed;

  private ChildWatchdog(Process watchdog) {
    this.watchdog = watchdog;
    this.pipe = watchdog.getOutputStream();
  }

  /** Starts the watchdog; before any child it is to watch. */
  static ChildWatchdog start(String name) {
    try (InputStream script = ChildWatchdog.class.getResourceAsStream("child-watchdog.sh")) {
      String text = new String(script.readAllBytes(), StandardCharsets.UTF_8);
      Process p =
          new ProcessBuilder("sh", "-c", text, name)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      return new ChildWatchdog(p);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the watchdog process", e);
    }
  }

  /** From now on {@code pid} is stopped when this JVM goes; a pid that is gone already is not. */
  synchronized void watch(long pid) {
    if (closed) {
      return;
    }
    OptionalLong ticks = ProcStat.startTicksOf(pid);
    if (ticks.isEmpty()) {
      return;
    }
    try {
      pipe.write((pid + " " + ticks.getAsLong() + "\n").getBytes(StandardCharsets.US_ASCII));
      pipe.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("the watchdog process is gone", e);
    }
  }

  long pid() {
    return watchdog.pid();
  }

  /**
   * Closes the pipe, so that the watchdog stops what is still running of the children it was told
   * about (normally nothing: the caller stopped them), and waits for it.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    try {
      pipe.close();
      watchdog.waitFor(GRACE.toSeconds(), TimeUnit.SECONDS);
    } catch (IOException e) {
      // it exited already
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

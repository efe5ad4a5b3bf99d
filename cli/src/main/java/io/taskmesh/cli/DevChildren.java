package io.taskmesh.cli;

import io.taskmesh.servicekit.Threads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Makes sure no child of {@code ./taskmesh dev} outlives it: the broker JVM(s), Postgres, the
 * Python runtimes, the state connectors and their local backends.
 *
 * <p>Dev writes its children ("pid start-ticks") to {@code {data}/dev-children}: the JVM's
 * descendants, plus the Postgres server, which {@code pg_ctl} detaches into a session of its own.
 * It does so right after it starts a child (a restarted one too), and scans for the rest (what the
 * children start themselves) every second while dev starts, then every ten seconds: a scan walks
 * every process of the machine, and an idle dev should not. A watchdog ({@code sh}, started first,
 * its stdin a pipe from dev) stops the processes of that file still running when the pipe closes:
 * when dev died (kill -9, a crash, the OOM killer), or after an orderly stop, which leaves it
 * nothing to do. A dev that finds the file of a dead predecessor on its data directory stops those
 * processes before it starts anything, so that a broker never runs twice on one log directory even
 * when the new dev starts before the watchdog is done. One mechanism for every child, including
 * those whose code we do not control (Kafka's main, Postgres, moto, redis-server).
 */
final class DevChildren implements AutoCloseable {
  private static final Duration STALE_STOP_GRACE = Duration.ofSeconds(15);

  /** While dev starts, its children start their own: scanned often. */
  private static final Duration STARTING_SCAN = Duration.ofSeconds(1);

  private static final Duration STARTING = Duration.ofSeconds(30);

  /**
   * Afterwards children rarely change, and each one dev starts is recorded at once: this scan only
   * catches what a child started by itself.
   */
  private static final Duration STEADY_SCAN = Duration.ofSeconds(10);

  private final Path file;
  private final Path postmasterPidFile;
  private Process watchdog;
  private OutputStream watchdogPipe;
  private Thread recorder;
  private volatile boolean closed;
  private String lastWritten = "";

  DevChildren(Path dataDir) {
    this.file = dataDir.resolve("dev-children");
    this.postmasterPidFile = dataDir.resolve("postgres").resolve("data").resolve("postmaster.pid");
  }

  /**
   * Stops what a dev that died on this data directory left running (its lock is free, so it is
   * gone): TERM, and KILL for those still there after a grace period.
   */
  void stopLeftovers(Consumer<String> say) {
    List<ProcessHandle> left = new ArrayList<>();
    for (String line : readLines()) {
      String[] f = line.trim().split(" ");
      if (f.length == 2 && ProcStat.alive(Long.parseLong(f[0]), Long.parseLong(f[1]))) {
        ProcessHandle.of(Long.parseLong(f[0])).ifPresent(left::add);
      }
    }
    if (!left.isEmpty()) {
      say.accept(
          "dev: stopping "
              + left.size()
              + " processes a dev that died left running (pids "
              + left.stream().map(h -> Long.toString(h.pid())).collect(Collectors.joining(" "))
              + ")");
      left.forEach(ProcessHandle::destroy);
      long deadline = System.nanoTime() + STALE_STOP_GRACE.toNanos();
      for (ProcessHandle h : left) {
        try {
          h.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (Exception stillRunning) {
          h.destroyForcibly();
          h.onExit().join();
        }
      }
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Starts the watchdog and the recorder; before any child starts. */
  void watch() {
    try (InputStream script = DevChildren.class.getResourceAsStream("child-watchdog.sh")) {
      String text = new String(script.readAllBytes(), StandardCharsets.UTF_8);
      watchdog =
          new ProcessBuilder("sh", "-c", text, "dev-watchdog", file.toString())
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      watchdogPipe = watchdog.getOutputStream();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start dev's watchdog process", e);
    }
    recorder = Threads.startDaemon("dev-children", this::recordPeriodically);
  }

  private void recordPeriodically() {
    long steadyFrom = System.nanoTime() + STARTING.toNanos();
    while (!closed) {
      record();
      Duration next = System.nanoTime() - steadyFrom < 0 ? STARTING_SCAN : STEADY_SCAN;
      try {
        Thread.sleep(next.toMillis()); // grandchildren come and go without an event to wait on
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Writes the children running now (also called right after a child starts). */
  synchronized void record() {
    if (closed) {
      return;
    }
    long watchdogPid = watchdog.pid();
    Set<Long> pids = new LinkedHashSet<>();
    ProcessHandle.current().descendants().forEach(h -> pids.add(h.pid()));
    pids.remove(watchdogPid);
    postmasterPid().ifPresent(pids::add);
    StringBuilder out = new StringBuilder();
    for (long pid : pids) {
      ProcStat.of(pid)
          .ifPresent(s -> out.append(pid).append(' ').append(s.startTicks()).append('\n'));
    }
    String text = out.toString();
    if (text.equals(lastWritten)) {
      return;
    }
    try {
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, text);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      lastWritten = text;
    } catch (IOException e) {
      // the next scan again; the file is a safety net, not the way dev stops its children
    }
  }

  private Optional<Long> postmasterPid() {
    try {
      String first = Files.readAllLines(postmasterPidFile).get(0).trim();
      return Optional.of(Long.parseLong(first));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  private List<String> readLines() {
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * After dev stopped its children itself: records once more and closes the watchdog's pipe, so
   * that it stops whatever an orderly stop left behind (normally nothing), then waits for it.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      record();
      closed = true;
    }
    if (recorder != null) {
      recorder.interrupt();
    }
    if (watchdog != null) {
      try {
        watchdogPipe.close();
        watchdog.waitFor(STALE_STOP_GRACE.toSeconds(), TimeUnit.SECONDS);
      } catch (IOException e) {
        // it exited already
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      // a stale file names processes that are gone: the next dev checks each one's start time
    }
  }
}

package io.taskmesh.devkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A service's {@code main} in a child JVM on this JVM's classpath, its output appended to a log
 * file, so a test can really kill -9 it, restart it and read what it printed.
 */
public final class ChildJvm implements AutoCloseable {
  private final Process process;
  private final Path log;

  private ChildJvm(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  /**
   * Starts {@code mainClass} with {@code env} added to this JVM's environment, with settings that
   * start fast and stay small (serial GC, C1 only): right for tests, not for measuring.
   */
  public static ChildJvm start(String mainClass, Map<String, String> env, Path log) {
    return start(
        mainClass, List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), env, log);
  }

  /**
   * Starts {@code mainClass} with these JVM options (none: the JVM's defaults, as a plain {@code
   * java} runs it).
   */
  public static ChildJvm start(
      String mainClass, List<String> jvmOptions, Map<String, String> env, Path log) {
    return start(mainClass, jvmOptions, List.of(), env, log);
  }

  /** As above, with these arguments to {@code main}. */
  public static ChildJvm start(
      String mainClass,
      List<String> jvmOptions,
      List<String> args,
      Map<String, String> env,
      Path log) {
    return start(mainClass, jvmOptions, args, env, log, true);
  }

  /**
   * As above; with {@code inherit} false the child gets {@code env} and nothing of this JVM's
   * environment (a child that must not read this process's secrets).
   */
  public static ChildJvm start(
      String mainClass,
      List<String> jvmOptions,
      List<String> args,
      Map<String, String> env,
      Path log,
      boolean inherit) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
    cmd.addAll(args);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (!inherit) {
      pb.environment().clear();
    }
    pb.environment().putAll(env);
    try {
      return new ChildJvm(pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The first line of the log (since the file was created) that matches, waiting for it while the
   * process lives; fails with the log's tail when the process exits or the time runs out.
   */
  public String awaitLine(Predicate<String> matches, long timeout, TimeUnit unit) {
    long deadline = System.nanoTime() + unit.toNanos(timeout);
    while (true) {
      Optional<String> line = lines().stream().filter(matches).findFirst();
      if (line.isPresent()) {
        return line.get();
      }
      if (!process.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            (process.isAlive() ? "timed out" : "exited " + process.exitValue())
                + " before the expected line; log tail:\n"
                + tail(40));
      }
      try {
        Thread.sleep(50); // polling a file another process writes
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  public List<String> lines() {
    try {
      return Files.exists(log) ? Files.readAllLines(log) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }

  public String tail(int n) {
    List<String> all = lines();
    return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()));
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** The exit status; only once the process has ended. */
  public int exitValue() {
    return process.exitValue();
  }

  public long pid() {
    return process.pid();
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed or closed. */
  public void kill9() {
    process.destroyForcibly();
    waitFor(10);
  }

  private void waitFor(int seconds) {
    try {
      process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM, then waits up to {@code seconds} for the process to end; true when it ended. */
  public boolean terminate(int seconds) {
    process.destroy();
    waitFor(seconds);
    return !process.isAlive();
  }

  /** SIGTERM, then SIGKILL if it has not stopped after 15 s. */
  @Override
  public void close() {
    if (process.isAlive() && !terminate(15)) {
      process.destroyForcibly();
    }
  }
}

package io.taskmesh.cli;

import io.taskmesh.devkit.Await;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * {@code taskmesh dev} as a real process in a session (and process group) of its own, as a
 * terminal's foreground job is a group of its own: a test signals the whole group as Ctrl-C does,
 * and finds every process that is left by its session in {@code /proc}.
 */
final class DevProcess implements AutoCloseable {
  /** Default INT handling, a new session, then exec: the pid stays the same. */
  private static final String SESSION_OF_ITS_OWN =
      "import os, signal, sys\n"
          + "signal.signal(signal.SIGINT, signal.SIG_DFL)\n"
          + "os.setsid()\n"
          + "os.execvp(sys.argv[1], sys.argv[1:])\n";

  private final Process process;
  private final Path log;

  private DevProcess(Process process, Path log) {
    this.process = process;
    this.log = log;
  }

  static DevProcess start(List<String> devArgs, Map<String, String> env, Path log) {
    return start(devArgs, env, log, System.getProperty("java.class.path"));
  }

  /** As above on {@code classpath} (a test leaves a jar out to make a start fail late). */
  static DevProcess start(
      List<String> devArgs, Map<String, String> env, Path log, String classpath) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-Xmx768m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(List.of("-cp", classpath, Main.class.getName(), "dev"));
    cmd.addAll(devArgs);
    return startCommand(cmd, env, log);
  }

  /**
   * Any command (e.g. the {@code ./taskmesh} launcher itself) in a session of its own, with {@code
   * TASKMESH_HOME} set to the repository (the launcher sets its own).
   */
  static DevProcess startCommand(List<String> command, Map<String, String> env, Path log) {
    List<String> cmd = new ArrayList<>();
    // setsid(1) would do, but keeps INT ignored when the test runs under a shell that ignores it
    // (a background job without job control); a terminal's foreground job always has it
    cmd.addAll(List.of("python3", "-c", SESSION_OF_ITS_OWN));
    cmd.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().put("TASKMESH_HOME", TestStacks.root().toString());
    pb.environment().putAll(env);
    try {
      return new DevProcess(pb.start(), log);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The dev JVM's pid (exec keeps it), which is also its session and group id. */
  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  int exitValue() {
    return process.exitValue();
  }

  boolean waitFor(long seconds) throws InterruptedException {
    return process.waitFor(seconds, TimeUnit.SECONDS);
  }

  /** What a terminal does on Ctrl-C (INT) or a process manager on stop (TERM): the whole group. */
  void signalGroup(String signal) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + pid()).inheritIO().start();
    if (kill.waitFor() != 0) {
      throw new IllegalStateException("kill -" + signal + " -" + pid() + " failed");
    }
  }

  /** SIGKILL to the dev JVM alone: a crash, nothing of dev runs any more. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /** Every process still in dev's session (dev itself too while it runs). */
  List<ProcStat> sessionMembers() {
    try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
      return procs
          .map(p -> p.getFileName().toString())
          .filter(n -> n.chars().allMatch(Character::isDigit))
          .map(n -> ProcStat.of(Long.parseLong(n)))
          .flatMap(Optional::stream)
          .filter(s -> s.session() == pid())
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * dev's descendants now (by parent, whatever their session: the broker runs in one of its own),
   * plus {@code extra} (its Postgres, which pg_ctl detaches from dev).
   */
  List<ProcStat> childrenAnd(long extra) {
    List<Long> pids = new ArrayList<>();
    ProcessHandle.of(pid()).ifPresent(h -> h.descendants().forEach(d -> pids.add(d.pid())));
    pids.add(extra);
    // with its start time: a later process that gets the same pid is not taken for it
    return pids.stream().map(ProcStat::of).flatMap(Optional::stream).toList();
  }

  /**
   * Waits until no process of this dev's session is left and none of {@code kids} runs (a hang
   * detector bounds it); how long that took.
   */
  Duration awaitNothingLeft(List<ProcStat> kids, Duration bound) {
    long t0 = System.nanoTime();
    Await.until(
        () ->
            Stream.concat(
                    sessionMembers().stream().map(ProcStat::pid),
                    kids.stream()
                        .filter(k -> ProcStat.alive(k.pid(), k.startTicks()))
                        .map(ProcStat::pid))
                .distinct()
                .map(pid -> pid + " " + commandOf(pid))
                .collect(Collectors.toList()),
        List::isEmpty,
        bound,
        "no process of dev's group left, nor any child it had");
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  /** The machine's load average, printed beside the figures a test prints. */
  static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "?";
    }
  }

  /** A process's command line, for messages. */
  static String commandOf(long pid) {
    try {
      return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline"))
          .replace('\0', ' ')
          .trim();
    } catch (IOException e) {
      return "(gone)";
    }
  }

  List<String> lines() {
    try {
      return Files.exists(log) ? Files.readAllLines(log) : List.of();
    } catch (IOException e) {
      return List.of();
    }
  }

  String tail(int n) {
    List<String> all = lines();
    return String.join("\n", all.subList(Math.max(0, all.size() - n), all.size()));
  }

  /** Kills whatever a failed test left of the group (the test kills the other children). */
  @Override
  public void close() throws Exception {
    for (ProcStat s : sessionMembers()) {
      ProcessHandle.of(s.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    process.destroyForcibly();
  }
}

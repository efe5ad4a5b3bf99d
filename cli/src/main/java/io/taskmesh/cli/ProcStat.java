package io.taskmesh.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What {@code /proc/<pid>/stat} says about a process: its start time (clock ticks since boot),
 * which tells a process apart from a later one that got the same pid, and its session.
 */
record ProcStat(long pid, long session, long startTicks) {

  /** Empty when the process is gone (or this is not Linux). */
  static Optional<ProcStat> of(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      // the command name (field 2) is in parentheses and may hold spaces: count after its ')'
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
      // f[0] is field 3 (state): session is field 6, start time field 22
      return Optional.of(new ProcStat(pid, Long.parseLong(f[3]), Long.parseLong(f[19])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  static OptionalLong startTicksOf(long pid) {
    return of(pid).map(s -> OptionalLong.of(s.startTicks())).orElse(OptionalLong.empty());
  }

  /** True while the process that had this pid at {@code startTicks} still runs. */
  static boolean alive(long pid, long startTicks) {
    OptionalLong now = startTicksOf(pid);
    return now.isPresent() && now.getAsLong() == startTicks;
  }
}

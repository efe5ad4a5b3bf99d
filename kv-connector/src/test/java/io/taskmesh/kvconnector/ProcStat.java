package io.taskmesh.kvconnector;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A process's or thread's {@code /proc/.../stat}: its name (comm, cut at 15 characters) and its CPU
 * time, user + system, in clock ticks (USER_HZ: 1/100 s on Linux). For the benchmarks.
 */
record ProcStat(String name, long cpuTicks) {
  static final long NANOS_PER_TICK = 10_000_000L;

  /** The whole machine's CPU ticks from /proc/stat: {busy, all} (idle and iowait are not busy). */
  static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      long all = 0;
      // cpu user nice system idle iowait irq softirq steal (guest time is already in user)
      for (int i = 1; i <= 8 && i < f.length; i++) {
        all += Long.parseLong(f[i]);
      }
      return new long[] {all - Long.parseLong(f[4]) - Long.parseLong(f[5]), all};
    } catch (IOException | RuntimeException e) {
      return new long[] {0, 0};
    }
  }

  /** Empty when the file is gone (the process or thread ended) or unreadable. */
  static Optional<ProcStat> read(Path stat) {
    try {
      String s = Files.readString(stat);
      int close = s.lastIndexOf(')');
      // fields after "pid (comm) ": state is [0], utime [11], stime [12]
      String[] f = s.substring(close + 2).split(" ");
      return Optional.of(
          new ProcStat(
              s.substring(s.indexOf('(') + 1, close),
              Long.parseLong(f[11]) + Long.parseLong(f[12])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}

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

  /** Empty when the file is gone (the process or thread ended) or unreadable. */
  static Optional<ProcStat> read(Path stat) {
    try {
      String s = Files.readString(stat);
      int close = s.lastIndexOf(')');
      // fields after "pid (comm) ": state is [0], utime [11], stime [12]
      String[] f = s.substring(close + 2).split(" ");
      return Optional.of(new ProcStat(s.substring(s.indexOf('(') + 1, close),
          Long.parseLong(f[11]) + Long.parseLong(f[12])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }
}

package io.taskmesh.gateway;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CPU time spent across one benchmark run, split by who spent it: the gateways' threads by part
 * (HTTP server, their own Kafka producers, the Streams fold, the update feed, the rest), the client
 * side (the bench's callers and the JDK HttpClient's threads), this JVM's remainder (JIT compiler,
 * GC, VM), and the broker child process. Divided by the requests of the run, it says what one
 * request costs, which holds up on a machine shared with other work better than requests/s do.
 */
final class BenchCpu {
  static final String[] PARTS = {
    "http", "producers", "fold", "feed", "gateway-other", "client", "jit-gc-vm", "broker"
  };

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final OperatingSystemMXBean OS =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** CPU of the bench's caller threads, which end with their run: each adds its own at the end. */
  final AtomicLong callers = new AtomicLong();

  private final Map<String, Long> start;

  BenchCpu() {
    start = snapshot(0);
  }

  /** Adds the calling thread's CPU time to the client side; call at the end of a caller thread. */
  void callerDone() {
    callers.addAndGet(THREADS.getCurrentThreadCpuTime());
  }

  /** Nanoseconds of CPU per part since this meter was made, callers included. */
  Map<String, Long> spent() {
    Map<String, Long> end = snapshot(callers.get());
    Map<String, Long> spent = new LinkedHashMap<>();
    for (String part : PARTS) {
      spent.put(part, Math.max(0, end.get(part) - start.get(part)));
    }
    return spent;
  }

  private static Map<String, Long> snapshot(long callerNanos) {
    Map<String, Long> parts = new LinkedHashMap<>();
    for (String part : PARTS) {
      parts.put(part, 0L);
    }
    long threads = 0;
    long[] ids = THREADS.getAllThreadIds();
    ThreadInfo[] infos = THREADS.getThreadInfo(ids);
    for (int i = 0; i < ids.length; i++) {
      long cpu = THREADS.getThreadCpuTime(ids[i]);
      if (infos[i] == null || cpu < 0) {
        continue;
      }
      String part = partOf(infos[i].getThreadName());
      if (part != null) {
        parts.merge(part, cpu, Long::sum);
        threads += cpu;
      }
    }
    parts.merge("client", callerNanos, Long::sum);
    // the process total less every thread counted: compiler, GC and VM threads, which
    // ThreadMXBean does not list (and the CPU of threads that ended, callers excepted)
    parts.put("jit-gc-vm", OS.getProcessCpuTime() - threads - callerNanos);
    parts.put("broker", brokerCpu().orElse(0L));
    return parts;
  }

  /** The part a thread's CPU counts to; null for the bench's callers, counted as they end. */
  private static String partOf(String name) {
    if (name.startsWith("bench-caller")) {
      return null;
    }
    if (name.startsWith("HttpClient-")) {
      return "client";
    }
    if (name.startsWith("JettyServerThreadPool") || name.startsWith("qtp")) {
      return "http";
    }
    if (name.contains("StreamThread")) {
      return "fold"; // the Streams threads and their producers' network threads
    }
    if (name.startsWith("kafka-producer-network-thread")) {
      return "producers";
    }
    if (name.startsWith("task-update-feed")) {
      return "feed";
    }
    return "gateway-other";
  }

  /**
   * CPU time of the broker, when the OS reports it: the bench JVM's only child JVM ({@code
   * LocalKafka}; Postgres runs as its own daemon).
   */
  private static Optional<Long> brokerCpu() {
    return ProcessHandle.current()
        .children()
        .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
        .findFirst()
        .flatMap(p -> p.info().totalCpuDuration())
        .map(Duration::toNanos);
  }
}

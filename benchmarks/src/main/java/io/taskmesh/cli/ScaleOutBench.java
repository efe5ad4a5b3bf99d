package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Topics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The scale-out run (issue 23 item 5), a program and not a CI test: it runs minutes and starts
 * three brokers, three gateways and nine actor processes.
 *
 * <p>Two rounds on {@link ScaleOutStack}, the same N tasks of the example {@code shout} flow
 * (upper, reverse, count) each, every task followed by its own SSE client:
 *
 * <ol>
 *   <li>one broker, no fault: the baseline;
 *   <li>three brokers (replication 3, min.insync 2): at 30 % of the tasks finished one broker is
 *       killed (-9) and restarted {@code --down} seconds later; at 70 % the api replicas are
 *       restarted one after the other (a rolling update).
 * </ol>
 *
 * Then it checks what the issue asks (every task exactly one correct terminal state; x-sink's queue
 * holds one committed envelope per task, so none was processed to a second terminal; every SSE
 * client, reconnecting with Last-Event-ID, saw its task end exactly once; every task answers on
 * every replica) and prints throughput, end-to-end p50/p99 and the longest time without a task
 * finishing while the broker was down. Exit status 1 when a check fails.
 *
 * <p>Usage: {@code ScaleOutBench [--tasks N] [--inflight K] [--down SECONDS]} (defaults 1000, 48,
 * 20); {@code scripts/scale-out-bench.sh} builds the class path and runs it.
 */
public final class ScaleOutBench {
  private ScaleOutBench() {}

  record Options(int tasks, int inflight, int downSeconds) {}

  /** What one round measured and what its checks found. */
  record Round(
      String name,
      int tasks,
      double seconds,
      long p50Ms,
      long p99Ms,
      long preFaultP50Ms,
      long preFaultP99Ms,
      long longestGapDownMs,
      long longestGapRestartMs,
      int reconnects,
      List<String> problems) {}

  public static void main(String[] args) throws Exception {
    Options o = parse(args);
    // the repository root (scripts/scale-out-bench.sh passes it; a run from the root finds it here)
    Path root = Path.of(System.getProperty("taskmesh.root", ".")).toAbsolutePath().normalize();
    Path data = Files.createTempDirectory("taskmesh-scale-out");
    List<Round> rounds = new ArrayList<>();
    rounds.add(round("1 broker", root, data.resolve("one"), 1, o, false));
    rounds.add(round("3 brokers + faults", root, data.resolve("three"), 3, o, true));
    System.out.println();
    System.out.println(report(o, rounds));
    boolean ok = rounds.stream().allMatch(r -> r.problems().isEmpty());
    System.out.println(ok ? "ALL CHECKS PASSED" : "CHECKS FAILED");
    System.exit(ok ? 0 : 1);
  }

  static Options parse(String[] args) {
    int tasks = 1000;
    int inflight = 48;
    int down = 20;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--tasks" -> tasks = Integer.parseInt(args[++i]);
        case "--inflight" -> inflight = Integer.parseInt(args[++i]);
        case "--down" -> down = Integer.parseInt(args[++i]);
        default ->
            throw new IllegalArgumentException(
                "unknown argument "
                    + args[i]
                    + "; usage: [--tasks N] [--inflight K] [--down SECONDS]");
      }
    }
    return new Options(tasks, inflight, down);
  }

  private static Round round(
      String name, Path root, Path data, int brokers, Options o, boolean faults) throws Exception {
    System.out.printf("== %s: starting the stack%n", name);
    try (ScaleOutStack stack = new ScaleOutStack(root, data, brokers)) {
      ScaleOutClient client = new ScaleOutClient(stack.apiUrls());
      AtomicInteger finished = new AtomicInteger();
      List<ScaleOutClient.TaskRun> runs = new ArrayList<>();
      for (int i = 0; i < o.tasks(); i++) {
        runs.add(new ScaleOutClient.TaskRun(i, "task " + i + " of " + name));
      }
      Faults timeline = new Faults();
      Thread faultThread = faults ? startFaults(stack, finished, o, timeline) : null;
      System.out.printf("== %s: %d tasks, %d in flight%n", name, o.tasks(), o.inflight());
      long start = System.nanoTime();
      ExecutorService pool = Executors.newFixedThreadPool(o.inflight());
      List<Future<?>> done = new ArrayList<>();
      for (ScaleOutClient.TaskRun run : runs) {
        done.add(
            pool.submit(
                () -> {
                  client.run(run);
                  int n = finished.incrementAndGet();
                  if (n % 100 == 0) {
                    System.out.printf("   %d finished%n", n);
                  }
                  return null;
                }));
      }
      for (Future<?> f : done) {
        f.get(30, TimeUnit.MINUTES);
      }
      pool.shutdown();
      long end = runs.stream().mapToLong(ScaleOutClient.TaskRun::endNanos).max().orElse(start);
      if (faultThread != null) {
        faultThread.join(TimeUnit.MINUTES.toMillis(5));
      }
      List<String> problems = new ArrayList<>();
      checkTerminals(runs, problems);
      checkQueriesOnEveryReplica(client, runs, problems);
      checkOneSinkEnvelopePerTask(stack, runs, problems);
      if (faults && (timeline.killedAt == 0 || timeline.rolledAt == 0)) {
        problems.add("the faults did not all happen (finished too early?)");
      }
      problems.forEach(p -> System.out.println("PROBLEM: " + p));
      List<Long> all = latencies(runs, Long.MAX_VALUE);
      List<Long> preFault = latencies(runs, faults ? timeline.killedAt : Long.MAX_VALUE);
      return new Round(
          name,
          o.tasks(),
          (end - start) / 1e9,
          percentile(all, 50),
          percentile(all, 99),
          percentile(preFault, 50),
          percentile(preFault, 99),
          faults ? longestGap(runs, timeline.killedAt, timeline.restartedAt) : 0,
          faults ? longestGap(runs, timeline.rollStartedAt, timeline.rolledAt) : 0,
          runs.stream().mapToInt(ScaleOutClient.TaskRun::reconnects).sum(),
          problems);
    }
  }

  /** When each fault happened (System.nanoTime). */
  static final class Faults {
    volatile long killedAt;
    volatile long restartedAt;
    volatile long rollStartedAt;
    volatile long rolledAt;
  }

  private static Thread startFaults(
      ScaleOutStack stack, AtomicInteger finished, Options o, Faults t) {
    Thread th =
        new Thread(
            () -> {
              try {
                awaitFinished(finished, o.tasks() * 3 / 10);
                System.out.println("   kill -9 broker 2");
                t.killedAt = System.nanoTime();
                stack.cluster().node(1).kill();
                Thread.sleep(o.downSeconds() * 1000L);
                System.out.println("   restarting broker 2");
                try {
                  stack.cluster().node(1).restart();
                } catch (IllegalStateException slow) { // its own wait (90 s) ran out
                  System.out.println("   " + slow.getMessage() + "; waiting for it");
                  awaitBrokers(stack, stack.cluster().size());
                }
                t.restartedAt = System.nanoTime();
                System.out.println("   broker 2 is back");
                awaitFinished(finished, o.tasks() * 7 / 10);
                t.rollStartedAt = System.nanoTime();
                for (int i = 0; i < ScaleOutStack.API_REPLICAS; i++) {
                  System.out.println("   rolling restart: api replica " + i);
                  stack.restartApi(i);
                }
                t.rolledAt = System.nanoTime();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "scale-out-faults");
    th.setDaemon(true);
    th.start();
    return th;
  }

  /** Until the cluster reports {@code n} live brokers (10 minutes at most). */
  private static void awaitBrokers(ScaleOutStack stack, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.cluster().bootstrapServers()))) {
      while (System.nanoTime() < deadline) {
        try {
          if (admin.describeCluster().nodes().get(10, TimeUnit.SECONDS).size() >= n) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          // asked again below
        }
        Thread.sleep(500);
      }
    }
    throw new IllegalStateException(n + " brokers not live after 10 minutes");
  }

  private static void awaitFinished(AtomicInteger finished, int n) throws InterruptedException {
    while (finished.get() < n) {
      Thread.sleep(50);
    }
  }

  private static void checkTerminals(List<ScaleOutClient.TaskRun> runs, List<String> problems) {
    for (ScaleOutClient.TaskRun r : runs) {
      if (r.id() == null) {
        problems.add("task " + r.index() + " was never accepted");
      } else if (r.terminalUpdates() != 1) {
        problems.add(
            "task " + r.id() + ": its SSE client saw " + r.terminalUpdates() + " terminal updates");
      } else if (!"succeeded".equals(r.finalStatus())) {
        problems.add("task " + r.id() + " ended " + r.finalStatus());
      }
    }
  }

  /** Every task answers on every api replica, succeeded, with the flow's result for its input. */
  private static void checkQueriesOnEveryReplica(
      ScaleOutClient client, List<ScaleOutClient.TaskRun> runs, List<String> problems) {
    for (ScaleOutClient.TaskRun r : runs) {
      if (r.id() == null) {
        continue;
      }
      for (String base : client.replicas()) {
        JsonNode task = client.task(base, r.id());
        String expected = new StringBuilder(r.text().toUpperCase(Locale.ROOT)).reverse().toString();
        if (task == null) {
          problems.add("task " + r.id() + " did not answer on " + base);
        } else if (!TaskStatus.fromWire(task.path("status").asText()).isFinal()
            || !"succeeded".equals(task.path("status").asText())
            || !expected.equals(task.at("/result/text").asText())
            || task.at("/result/length").asInt() != expected.length()) {
          problems.add("task " + r.id() + " on " + base + " is " + task);
        }
      }
    }
  }

  /**
   * x-sink's queue, read committed from the start: one envelope per task. A second one would be an
   * envelope processed to a terminal state twice (a batch's outputs committed twice).
   */
  private static void checkOneSinkEnvelopePerTask(
      ScaleOutStack stack, List<ScaleOutClient.TaskRun> runs, List<String> problems) {
    String topic = Topics.actorQueue(stack.namespace(), Topics.SINK);
    Map<String, Integer> perKey = new HashMap<>();
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.cluster().bootstrapServers());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.GROUP_ID_CONFIG, "scale-out-check-" + System.nanoTime());
    try (KafkaConsumer<String, byte[]> consumer =
        new KafkaConsumer<>(props, new StringDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      int total = 0;
      long quietSince = System.nanoTime();
      while (System.nanoTime() < deadline) {
        int n = 0;
        for (ConsumerRecord<String, byte[]> rec : consumer.poll(Duration.ofMillis(500))) {
          perKey.merge(rec.key(), 1, Integer::sum);
          n++;
        }
        total += n;
        if (n > 0) {
          quietSince = System.nanoTime();
        } else if (total >= runs.size()
            && System.nanoTime() - quietSince > TimeUnit.SECONDS.toNanos(3)) {
          break;
        }
      }
    }
    for (ScaleOutClient.TaskRun r : runs) {
      int n = r.id() == null ? 1 : perKey.getOrDefault(r.id(), 0);
      if (n != 1) {
        problems.add("task " + r.id() + ": " + n + " envelopes reached x-sink");
      }
    }
    if (perKey.size() != runs.size()) {
      problems.add(
          "x-sink received envelopes of " + perKey.size() + " ids for " + runs.size() + " tasks");
    }
  }

  /** End-to-end latencies (ms, sorted) of the tasks that finished before {@code endedBefore}. */
  private static List<Long> latencies(List<ScaleOutClient.TaskRun> runs, long endedBefore) {
    return runs.stream()
        .filter(r -> r.endNanos() > 0 && r.endNanos() < endedBefore)
        .map(r -> (r.endNanos() - r.submitNanos()) / 1_000_000)
        .sorted()
        .toList();
  }

  static long percentile(List<Long> sorted, int p) {
    if (sorted.isEmpty()) {
      return -1;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(i, sorted.size() - 1)));
  }

  /** The longest time in [from, to] during which no task finished (ms). */
  static long longestGap(List<ScaleOutClient.TaskRun> runs, long from, long to) {
    if (from == 0 || to == 0) {
      return -1;
    }
    List<Long> points = new ArrayList<>();
    points.add(from);
    runs.stream()
        .mapToLong(ScaleOutClient.TaskRun::endNanos)
        .filter(t -> t > from && t < to)
        .sorted()
        .forEach(points::add);
    points.add(to);
    long gap = 0;
    for (int i = 1; i < points.size(); i++) {
      gap = Math.max(gap, points.get(i) - points.get(i - 1));
    }
    return gap / 1_000_000;
  }

  static String report(Options o, List<Round> rounds) {
    StringBuilder b = new StringBuilder();
    b.append(
        String.format(
            "scale-out: %d tasks (shout: upper -> reverse -> count), %d in flight, each with an SSE"
                + " client; 2 api replicas + mesh gateway, 2 sidecars per actor%n",
            o.tasks(), o.inflight()));
    b.append(
        String.format(
            "%-20s %9s %9s %8s %8s %14s %14s %12s %12s %10s%n",
            "round",
            "seconds",
            "tasks/s",
            "p50 ms",
            "p99 ms",
            "pre-kill p50",
            "pre-kill p99",
            "gap down ms",
            "gap roll ms",
            "reconnects"));
    Round base = rounds.get(0);
    for (Round r : rounds) {
      b.append(
          String.format(
              "%-20s %9.1f %9.1f %8d %8d %14d %14d %12d %12d %10d%n",
              r.name(),
              r.seconds(),
              r.tasks() / r.seconds(),
              r.p50Ms(),
              r.p99Ms(),
              r.preFaultP50Ms(),
              r.preFaultP99Ms(),
              r.longestGapDownMs(),
              r.longestGapRestartMs(),
              r.reconnects()));
    }
    for (Round r : rounds.subList(1, rounds.size())) {
      b.append(
          String.format(
              "ratio %s / %s: throughput %.2f, p50 %.2f, p99 %.2f (tasks done before the kill: p50 %.2f, p99 %.2f)%n",
              r.name(),
              base.name(),
              (r.tasks() / r.seconds()) / (base.tasks() / base.seconds()),
              (double) r.p50Ms() / base.p50Ms(),
              (double) r.p99Ms() / base.p99Ms(),
              (double) r.preFaultP50Ms() / base.p50Ms(),
              (double) r.preFaultP99Ms() / base.p99Ms()));
    }
    for (Round r : rounds) {
      b.append(
          String.format(
              "%s checks: %s%n",
              r.name(), r.problems().isEmpty() ? "all passed" : r.problems().size() + " problems"));
    }
    return b.toString();
  }
}

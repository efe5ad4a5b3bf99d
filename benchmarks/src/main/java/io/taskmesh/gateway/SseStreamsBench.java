package io.taskmesh.gateway;

import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.JsonSerde;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.TaskEvent;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * On-demand benchmark (not a test): many concurrent SSE streams on one gateway, and the gateway's
 * resident memory while it serves them (issue 24, item 6).
 *
 * <p>The gateway runs as its own child JVM ({@code gateway.Main}, testing mode) with the heap
 * {@code ./taskmesh} gives it ({@code -Xmx512m}; {@code -Dgateway.opts="..."} replaces it), so its
 * {@code VmRSS} is the gateway's alone. The bench creates {@code tasks} tasks over {@code POST
 * /tools/call}, opens {@code streams} clients on {@code GET /stream/{id}} spread round-robin over
 * them (several watchers per task, as a dashboard and an MCP client of the same task would be, and
 * one feed update fanned out to many writers), then produces {@code progress} progress events per
 * task straight to the task event topic (a token-streaming task's updates) and one final event per
 * task; every client must read its final update and see the server end the stream.
 *
 * <p>Printed: the gateway's VmRSS, threads and heap used when idle (tasks created, no stream: the
 * same-run baseline), with every stream open, at its peak while the events go out, and after the
 * streams ended; the bytes per stream. {@code -Dnmt=true} starts the gateway with native memory
 * tracking and prints its summary with all streams open; {@code -Dhisto=N} prints the top N of the
 * heap histogram then.
 *
 * <p>Args: streams (10000), tasks (1000), progress events per task (20). The client holds one
 * socket per stream: {@code ulimit -n} must exceed the stream count (the gateway's too).
 */
public final class SseStreamsBench {
  private static final Pattern GATEWAY_URL =
      Pattern.compile("gateway \\(testing\\): http://127\\.0\\.0\\.1:(\\d+)");
  private static final Pattern HEAP_USED = Pattern.compile("total (\\d+)K, used (\\d+)K");
  private static final long TARGET_RSS_KB = 1024 * 1024;

  /** One reading of the gateway process. */
  private record Reading(long rssKb, int threads, long heapUsedKb, long heapCommittedKb, long fds) {
    String describe() {
      return String.format(
          "RSS %,d MB, %d threads, heap used %,d MB of %,d MB committed, %,d open files",
          rssKb / 1024, threads, heapUsedKb / 1024, heapCommittedKb / 1024, fds);
    }
  }

  public static void main(String[] args) throws Exception {
    int streams = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    int tasks = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int progress = args.length > 2 ? Integer.parseInt(args[2]) : 20;
    List<String> jvmOptions =
        new ArrayList<>(
            List.of(System.getProperty("gateway.opts", "-Xmx512m").trim().split("\\s+")));
    boolean nmt = Boolean.getBoolean("nmt");
    if (nmt) {
      jvmOptions.add("-XX:NativeMemoryTracking=summary");
    }
    int histo = Integer.getInteger("histo", 0);
    System.out.printf(
        "streams %,d over %,d tasks, %d progress events + 1 final per task; gateway JVM %s; load %s%n",
        streams, tasks, progress, jvmOptions, loadAverage());

    String bootstrap = LocalKafka.shared().bootstrapServers();
    Path dir = Files.createTempDirectory("sse-streams-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String prefix = "ssestreams-" + UUID.randomUUID().toString().substring(0, 8);
    try (ChildJvm gateway =
        ChildJvm.start(
            Main.class.getName(),
            jvmOptions,
            List.of(),
            env(dir, flows, prefix),
            dir.resolve("gateway.log"))) {
      Matcher url =
          GATEWAY_URL.matcher(
              gateway.awaitLine(l -> GATEWAY_URL.matcher(l).find(), 120, TimeUnit.SECONDS));
      url.find();
      int port = Integer.parseInt(url.group(1));
      String base = "http://127.0.0.1:" + port;
      long pid = gateway.pid();
      System.out.printf("gateway pid %d on %s: %s%n", pid, base, read(pid).describe());
      long limit = openFilesLimit(pid);
      System.out.printf(
          "open files limit: gateway %,d, this client %,d%n",
          limit, openFilesLimit(ProcessHandle.current().pid()));
      if (limit < streams + 1000L
          || openFilesLimit(ProcessHandle.current().pid()) < streams + 1000L) {
        throw new IllegalStateException(
            "raise the open files limit (ulimit -n) to at least "
                + (streams + 1000)
                + " before the run");
      }

      List<String> ids = createTasks(base, tasks);
      TaskHttp.await(base + "/tasks/" + ids.get(ids.size() - 1), n -> true, Duration.ofSeconds(60));
      Reading idle = read(pid);
      System.out.printf("idle, %,d tasks created, no stream: %s%n", tasks, idle.describe());

      RssPeak peak = new RssPeak(pid);
      List<String> paths =
          IntStream.range(0, streams).mapToObj(i -> "/stream/" + ids.get(i % tasks)).toList();
      long openStart = System.nanoTime();
      try (SseStreamsClient clients = new SseStreamsClient(port, paths)) {
        // every client has its status line and the replayed "created" update
        awaitOrReport(
            () -> clients.behind(1) == 0,
            Duration.ofMinutes(5),
            () ->
                String.format(
                    "%d of %d clients open, %d failed, %d without their first update",
                    clients.opened(), streams, clients.failed(), clients.behind(1)));
        System.out.printf(
            "%,d streams open in %.1f s (%d failed)%n",
            clients.opened(), (System.nanoTime() - openStart) / 1e9, clients.failed());
        Thread.sleep(2000); // settles: the accept and dispatch bursts are over
        Reading open = read(pid);
        System.out.printf("all streams open: %s%n", open.describe());
        if (nmt) {
          System.out.println(jcmd(pid, "VM.native_memory", "summary"));
        }
        if (histo > 0) {
          jcmd(pid, "GC.class_histogram").lines().limit(histo + 3L).forEach(System.out::println);
        }

        long sendStart = System.nanoTime();
        int sent = produce(bootstrap, prefix + ".task-events", ids, progress);
        int expectedUpdates = 1 + progress + 1;
        awaitOrReport(
            () -> clients.closedAfterFinal() + clients.failed() >= streams,
            Duration.ofMinutes(5),
            () ->
                String.format(
                    "%d of %d clients got their final update, %d ended after it, %d failed",
                    clients.finals(), streams, clients.closedAfterFinal(), clients.failed()));
        double took = (System.nanoTime() - sendStart) / 1e9;
        Reading after = read(pid);
        long peakKb = peak.stop();
        System.out.printf(
            "%,d events produced; %,d updates read by the clients in %.1f s (%,d expected: %d per stream)%n",
            sent, clients.updates(), took, (long) streams * expectedUpdates, expectedUpdates);
        System.out.printf(
            "final update received by %,d of %,d clients; stream ended after it: %,d; failed: %d%n",
            clients.finals(), streams, clients.closedAfterFinal(), clients.failed());
        System.out.printf("peak while streaming: RSS %,d MB%n", peakKb / 1024);
        System.out.printf("after every stream ended: %s%n", after.describe());
        System.out.printf(
            "per stream (open - idle) / streams: %,d bytes RSS, %,d bytes heap; ratio peak / idle RSS %.2f%n",
            (open.rssKb() - idle.rssKb()) * 1024 / streams,
            (open.heapUsedKb() - idle.heapUsedKb()) * 1024 / streams,
            (double) peakKb / idle.rssKb());
        boolean allFinal = clients.finals() == streams && clients.closedAfterFinal() == streams;
        System.out.printf(
            "target: every client its final update: %s; peak RSS < 1 GB: %s (%,d MB); load %s%n",
            allFinal ? "met" : "NOT met",
            peakKb < TARGET_RSS_KB ? "met" : "NOT met",
            peakKb / 1024,
            loadAverage());
      }
    }
    LocalKafka.shared().close();
    System.exit(0);
  }

  /** The gateway's env: the shared broker, task topics of its own ({@code prefix}), a free port. */
  private static Map<String, String> env(Path dir, Path flows, String prefix) {
    return TaskHttp.env(prefix, dir.resolve("state"), flows, TaskHttp.freePort());
  }

  /** {@code count} tasks of the echo flow over {@code POST /tools/call}, 8 callers at once. */
  private static List<String> createTasks(String base, int count) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> calls = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        calls.add(pool.submit(() -> TaskHttp.callTool(base, "echo")));
      }
      List<String> ids = new ArrayList<>();
      for (Future<String> call : calls) {
        ids.add(call.get());
      }
      return Collections.unmodifiableList(ids);
    } finally {
      pool.shutdown();
    }
  }

  /**
   * {@code progress} progress events per task, round-robin over the tasks (each with a token-sized
   * message), then one final event per task, produced to the task event topic as the gateway's own
   * append does ({@code acks=all}).
   */
  private static int produce(String bootstrap, String topic, List<String> ids, int progress) {
    List<String> actors = IntStream.range(0, progress + 1).mapToObj(i -> "a" + i).toList();
    Properties pp = new Properties();
    pp.put("bootstrap.servers", bootstrap);
    pp.put("acks", "all");
    pp.put("linger.ms", 5);
    int sent = 0;
    try (KafkaProducer<String, TaskEvent> p =
        new KafkaProducer<>(
            pp, new StringSerializer(), new JsonSerde<>(TaskEvent.class).serializer())) {
      for (int idx = 0; idx < progress; idx++) {
        for (String id : ids) {
          String token = "token " + idx + " of a streamed answer, about forty chars";
          p.send(
              new ProducerRecord<>(
                  topic,
                  id,
                  TaskEvent.progress(
                      id, new ProgressReport(null, null, null, actors, idx, "completed", token))));
          sent++;
        }
      }
      for (String id : ids) {
        p.send(
            new ProducerRecord<>(
                topic,
                id,
                TaskEvent.finished(id, FinalReport.succeeded(id, null, "a" + progress, null))));
        sent++;
      }
      p.flush();
    }
    return sent;
  }

  private static void awaitOrReport(
      BooleanSupplier done, Duration within, java.util.function.Supplier<String> state)
      throws InterruptedException {
    long until = System.nanoTime() + within.toNanos();
    long nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("timed out: " + state.get());
      }
      if (System.nanoTime() > nextReport) {
        System.out.println("  ... " + state.get());
        nextReport += TimeUnit.SECONDS.toNanos(10);
      }
      Thread.sleep(50); // counters another thread moves; nothing to wait on
    }
  }

  /** The gateway's VmRSS and thread count from /proc, its heap from {@code jcmd GC.heap_info}. */
  static Reading read(long pid) throws IOException, InterruptedException {
    long rss = 0;
    int threads = 0;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = Long.parseLong(line.replaceAll("\\D", ""));
      } else if (line.startsWith("Threads:")) {
        threads = Integer.parseInt(line.replaceAll("\\D", ""));
      }
    }
    long used = -1;
    long committed = -1;
    Matcher m = HEAP_USED.matcher(jcmd(pid, "GC.heap_info"));
    if (m.find()) {
      committed = Long.parseLong(m.group(1));
      used = Long.parseLong(m.group(2));
    }
    long fds;
    try (var files = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      fds = files.count();
    }
    return new Reading(rss, threads, used, committed, fds);
  }

  /** The soft {@code Max open files} of a process (/proc/PID/limits). */
  private static long openFilesLimit(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "limits"))) {
      if (line.startsWith("Max open files")) {
        String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
        return "unlimited".equals(soft) ? Long.MAX_VALUE : Long.parseLong(soft);
      }
    }
    return Long.MAX_VALUE;
  }

  static long rssKb(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("\\D", ""));
        }
      }
    } catch (IOException e) {
      return 0; // the process ended
    }
    return 0;
  }

  private static String jcmd(long pid, String... command) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString());
    cmd.add(Long.toString(pid));
    cmd.addAll(List.of(command));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(30, TimeUnit.SECONDS);
    return out;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
    } catch (IOException e) {
      return "?";
    }
  }

  /** Samples the gateway's VmRSS every 100 ms and keeps the highest. */
  private static final class RssPeak {
    private final AtomicLong peak = new AtomicLong();
    private final Thread sampler;
    private volatile boolean running = true;

    RssPeak(long pid) {
      sampler =
          new Thread(
              () -> {
                while (running) {
                  peak.accumulateAndGet(rssKb(pid), Math::max);
                  try {
                    Thread.sleep(100); // a sampling interval, not a wait for an event
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "rss-peak");
      sampler.setDaemon(true);
      sampler.start();
    }

    long stop() throws InterruptedException {
      running = false;
      sampler.join();
      return peak.get();
    }
  }
}

package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * On-demand benchmark (not a test): event-to-SSE latency. N tasks, one SSE client on {@code GET
 * /stream/{id}} each, then progress reports ({@code POST /mesh/{id}/progress}) at a fixed total
 * rate spread over the tasks; each report carries its send time in {@code message}, so every client
 * measures report-sent -> SSE update received. Baseline in the same run: raw Kafka produce ->
 * consume latency of the same rate (acks=all, one record per event).
 *
 * <p>Both sides first run a warm-up at the same rate (default 15 s) whose samples are not counted:
 * until the JIT has compiled the paths, every figure here is several times worse (the first seconds
 * of a cold run are printed separately).
 *
 * <p>Args: clients (1000), events/s (1000), seconds (10), warm-up seconds (15).
 */
public final class SseLatencyBench {
  private static final Pattern SENT = Pattern.compile("\"message\":\"sent:(\\d+)\"");
  private static final int POSTERS = 32;

  /**
   * {@code -Dingest=kafka} (default): progress events are produced straight to the task event
   * topic, as the gateway's own append does (acks=all), so the figure is event -> SSE; {@code
   * -Dingest=http}: they are POSTed to the gateway, which adds its HTTP ingest.
   */
  private static final boolean KAFKA_INGEST = !"http".equals(System.getProperty("ingest", "kafka"));

  /** One latency sample: when it was sent (nanoTime) and how long it took. */
  private record Sample(long sentAt, long nanos) {}

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 15;
    System.out.println("load at start: " + FlyBench.loadavg());
    String bootstrap = LocalKafka.shared().bootstrapServers();

    Window raw = rawKafka(bootstrap, rate, warmup, seconds);
    Path dir = Files.createTempDirectory("sse-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String prefix = "ssebench-" + UUID.randomUUID().toString().substring(0, 8);
    String eventsTopic = prefix + ".task-events";
    try (Gateway g = start(dir, flows, prefix)) {
      String base = "http://127.0.0.1:" + g.port();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        ids.add(TaskHttp.callTool(base, "echo"));
      }
      TaskHttp.await(base + "/tasks/" + ids.get(ids.size() - 1), n -> true, Duration.ofSeconds(60));
      ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
      CountDownLatch open = new CountDownLatch(clients);
      AtomicInteger failed = new AtomicInteger();
      for (String id : ids) {
        Thread t =
            new Thread(() -> read(g.port(), "/stream/" + id, open, samples, failed), "sse-" + id);
        t.setDaemon(true);
        t.start();
      }
      if (!open.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "only " + (clients - open.getCount()) + " SSE clients connected");
      }
      Thread.sleep(1000); // every client has read its replayed "created" update
      // the breakdown: the same events as folded updates on the update topic, read as the
      // gateway's feed reads them (read_uncommitted), before any SSE client sees them
      ConcurrentLinkedQueue<Sample> folded = new ConcurrentLinkedQueue<>();
      AtomicBoolean watching = new AtomicBoolean(true);
      Thread foldWatch = watchUpdates(bootstrap, prefix + ".task-updates", folded, watching);
      long start = System.nanoTime();
      int sent =
          KAFKA_INGEST
              ? produce(bootstrap, eventsTopic, ids, rate, warmup + seconds)
              : post(g.port(), ids, rate, warmup + seconds);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (samples.size() < sent && System.nanoTime() < deadline) {
        Thread.sleep(50); // stragglers
      }
      watching.set(false);
      foldWatch.join();
      Window gw = Window.of(samples, start, warmup);
      Window fold = Window.of(folded, start, warmup);
      dump(samples, folded);
      System.out.printf(
          "SSE: %d clients, %d progress events (%s) at %d/s for %d s (%d s warm-up); %d updates received"
              + " (%d clients failed)%n",
          clients,
          sent,
          KAFKA_INGEST ? "produced to the task event topic" : "HTTP POST /mesh/{id}/progress",
          rate,
          warmup + seconds,
          warmup,
          samples.size(),
          failed.get());
      gw.print("report -> SSE update");
      raw.print("raw Kafka produce -> consume");
      fold.print("breakdown: event -> folded update on the update topic (fold + produce)");
      printFoldCommits();
      double ratio = ms(gw.measured, 99) / Math.max(0.001, ms(raw.measured, 99));
      System.out.printf(
          "ratio p99 gateway / raw Kafka p99 of the same run (after warm-up): %.1f; target <= 3.0:"
              + " %s%n",
          ratio, ratio <= 3.0 ? "met" : "NOT met");
    }
    System.out.println("load at end: " + FlyBench.loadavg());
    LocalKafka.shared().close();
    System.exit(0);
  }

  /**
   * {@code -Ddump=<file>}: every sample as {@code path,uptime ms when sent,latency ms}, the uptime
   * on the JVM's clock as {@code -Xlog:gc} prints it, so a tail can be lined up with collections.
   */
  private static void dump(java.util.Collection<Sample> sse, java.util.Collection<Sample> folded)
      throws Exception {
    String file = System.getProperty("dump");
    if (file == null) {
      return;
    }
    long nowNanos = System.nanoTime();
    long uptimeMs = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime();
    StringBuilder out = new StringBuilder("path,sent_uptime_ms,latency_ms\n");
    for (var part : Map.of("sse", sse, "fold", folded).entrySet()) {
      for (Sample x : part.getValue()) {
        out.append(part.getKey())
            .append(',')
            .append(String.format("%.1f", uptimeMs - (nowNanos - x.sentAt()) / 1e6))
            .append(',')
            .append(String.format("%.2f", x.nanos() / 1e6))
            .append('\n');
      }
    }
    Files.writeString(Path.of(file), out);
  }

  /** The samples of a run split into its first seconds (cold), and those after the warm-up. */
  // sorted latency samples, read by index for percentiles; a window is printed, never compared
  @SuppressWarnings("ArrayRecordComponent")
  private record Window(long[] cold, long[] measured, int warmup) {
    static Window of(java.util.Collection<Sample> samples, long start, int warmup) {
      long warmEnd = start + TimeUnit.SECONDS.toNanos(warmup);
      long coldEnd = start + TimeUnit.SECONDS.toNanos(Math.min(5, warmup));
      long[] cold =
          samples.stream()
              .filter(x -> x.sentAt() < coldEnd)
              .mapToLong(Sample::nanos)
              .sorted()
              .toArray();
      long[] measured =
          samples.stream()
              .filter(x -> x.sentAt() >= warmEnd)
              .mapToLong(Sample::nanos)
              .sorted()
              .toArray();
      return new Window(cold, measured, warmup);
    }

    void print(String what) {
      System.out.printf(
          "%s, after the warm-up (%d samples): p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          what,
          measured.length,
          ms(measured, 50),
          ms(measured, 90),
          ms(measured, 99),
          ms(measured, 100));
      System.out.printf(
          "%s, first 5 s of the cold run (%d samples): p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          what, cold.length, ms(cold, 50), ms(cold, 99), ms(cold, 100));
    }
  }

  /** The gateway under test on the shared broker, with task topics of its own ({@code prefix}). */
  private static Gateway start(Path dir, Path flows, String prefix) {
    return TaskHttp.start(TaskHttp.env(prefix, dir.resolve("state"), flows, 0));
  }

  /**
   * One SSE client on a plain socket with a blocking reader thread: an HTTP/1.1 GET, then lines.
   * (The JDK HttpClient cost the bench more CPU than the gateway's own SSE path.) The body is
   * chunked; chunk-size lines are not {@code data:} lines and are skipped like comments.
   */
  private static void read(
      int port,
      String path,
      CountDownLatch open,
      ConcurrentLinkedQueue<Sample> samples,
      AtomicInteger failed) {
    try (java.net.Socket socket =
        new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
      socket
          .getOutputStream()
          .write(
              ("GET "
                      + path
                      + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      + "Accept: text/event-stream\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String status = in.readLine();
      open.countDown();
      if (status == null || !status.contains(" 200 ")) {
        failed.incrementAndGet();
        return;
      }
      String line;
      while ((line = in.readLine()) != null) {
        if (line.startsWith("data:")) {
          Matcher m = SENT.matcher(line);
          if (m.find()) {
            long sentAt = Long.parseLong(m.group(1));
            samples.add(new Sample(sentAt, System.nanoTime() - sentAt));
          }
        }
      }
    } catch (Exception e) {
      failed.incrementAndGet();
      open.countDown();
    }
  }

  /**
   * Progress reports at {@code rate}/s for {@code seconds}, round-robin over the tasks, each higher
   * than the last of its task, POSTed by 32 threads over keep-alive plain-socket connections (a
   * shared schedule paces them), so the rate does not depend on how long one POST takes and the
   * client's own cost stays small.
   */
  private static int post(int port, List<String> ids, int rate, int seconds) throws Exception {
    int total = rate * seconds;
    String actors = actors(total / ids.size() + 1);
    AtomicInteger next = new AtomicInteger();
    AtomicInteger errors = new AtomicInteger();
    long start = System.nanoTime();
    long interval = TimeUnit.SECONDS.toNanos(1) / rate;
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < POSTERS; t++) {
      Thread thread =
          new Thread(
              () -> {
                try (java.net.Socket socket =
                    new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), port)) {
                  socket.setTcpNoDelay(true);
                  java.io.OutputStream out = socket.getOutputStream();
                  java.io.DataInputStream in =
                      new java.io.DataInputStream(
                          new java.io.BufferedInputStream(socket.getInputStream()));
                  int i;
                  while ((i = next.getAndIncrement()) < total) {
                    paceTo(start + i * interval);
                    String id = ids.get(i % ids.size());
                    int idx =
                        i / ids.size(); // this task's n-th report: index form, strictly increasing
                    byte[] body =
                        ("{\"actors\":"
                                + actors
                                + ",\"current_actor_idx\":"
                                + idx
                                + ",\"status\":\"completed\",\"message\":\"sent:"
                                + System.nanoTime()
                                + "\"}")
                            .getBytes(StandardCharsets.UTF_8);
                    out.write(
                        ("POST /mesh/"
                                + id
                                + "/progress HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                + "Content-Type: application/json\r\nContent-Length: "
                                + body.length
                                + "\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.write(body);
                    out.flush();
                    if (!readResponse(in)) {
                      errors.incrementAndGet();
                    }
                  }
                } catch (java.io.IOException e) {
                  errors.incrementAndGet();
                }
              },
              "poster-" + t);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    double took = (System.nanoTime() - start) / 1e9;
    System.out.printf(
        "posted %d reports in %.1f s (%.0f/s), %d failed%n",
        total, took, total / took, errors.get());
    if (errors.get() > 0) {
      throw new IllegalStateException(errors.get() + " progress reports failed");
    }
    return total;
  }

  /** Reads one HTTP/1.1 response with a Content-Length body; true when it is a 200. */
  private static boolean readResponse(java.io.DataInputStream in) throws java.io.IOException {
    return readStatusAndBody(in).contains(" 200 ");
  }

  /**
   * Reads one HTTP/1.1 response with a Content-Length body (skipped); returns its status line. Also
   * the raw client of {@link FlyBench}.
   */
  static String readStatusAndBody(java.io.DataInputStream in) throws java.io.IOException {
    String status = readLine(in);
    int length = 0;
    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
      if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
        length = Integer.parseInt(line.substring(15).trim());
      }
    }
    in.skipNBytes(length);
    return status;
  }

  private static String readLine(java.io.DataInputStream in) throws java.io.IOException {
    StringBuilder b = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new java.io.EOFException("connection closed mid-response");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }

  /** As {@link #post}, but each report is a task event produced to the event topic. */
  private static int produce(
      String bootstrap, String topic, List<String> ids, int rate, int seconds) {
    int total = rate * seconds;
    List<String> actors = actorNames(total / ids.size() + 1);
    Properties pp = new Properties();
    pp.put("bootstrap.servers", bootstrap);
    pp.put("acks", "all");
    pp.put("linger.ms", 0);
    try (KafkaProducer<String, io.taskmesh.schemas.TaskEvent> p =
        new KafkaProducer<>(
            pp,
            new StringSerializer(),
            new io.taskmesh.schemas.JsonSerde<>(io.taskmesh.schemas.TaskEvent.class)
                .serializer())) {
      long start = System.nanoTime();
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      for (int i = 0; i < total; i++) {
        paceTo(start + i * interval);
        String id = ids.get(i % ids.size());
        int idx = i / ids.size();
        p.send(
            new ProducerRecord<>(
                topic,
                id,
                io.taskmesh.schemas.TaskEvent.progress(
                    id,
                    new io.taskmesh.schemas.ProgressReport(
                        null, null, null, actors, idx, "completed", "sent:" + System.nanoTime()))));
      }
      p.flush();
      double took = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "produced %d progress events in %.1f s (%.0f/s)%n", total, took, total / took);
    }
    return total;
  }

  /** As few actors as the reports per task need (the list is stored with every update). */
  private static List<String> actorNames(int count) {
    return java.util.stream.IntStream.range(0, count).mapToObj(i -> "a" + i).toList();
  }

  private static String actors(int count) {
    return io.taskmesh.schemas.Json.write(actorNames(count));
  }

  /**
   * Raw Kafka: one producer (acks=all) at {@code rate}/s, one consumer; latency from the send time
   * in the value.
   */
  private static Window rawKafka(String bootstrap, int rate, int warmup, int seconds)
      throws Exception {
    String topic = "sse-bench-raw-" + UUID.randomUUID();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
    }
    Properties cp = new Properties();
    cp.put("bootstrap.servers", bootstrap);
    cp.put("group.id", topic);
    cp.put("auto.offset.reset", "earliest");
    int total = rate * (warmup + seconds);
    ConcurrentLinkedQueue<Sample> samples = new ConcurrentLinkedQueue<>();
    Thread consumer =
        new Thread(
            () -> {
              try (KafkaConsumer<String, String> c =
                  new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
                c.subscribe(List.of(topic));
                long deadline =
                    System.nanoTime() + TimeUnit.SECONDS.toNanos(warmup + seconds + 60L);
                while (samples.size() < total && System.nanoTime() < deadline) {
                  for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                    long sentAt = Long.parseLong(r.value());
                    samples.add(new Sample(sentAt, System.nanoTime() - sentAt));
                  }
                }
              }
            });
    consumer.start();
    Thread.sleep(3000); // group joined and partitions assigned before the clock starts
    Properties pp = new Properties();
    pp.put("bootstrap.servers", bootstrap);
    pp.put("acks", "all");
    pp.put("linger.ms", 0);
    long start = System.nanoTime();
    try (KafkaProducer<String, String> p =
        new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      for (int i = 0; i < total; i++) {
        paceTo(start + i * interval);
        p.send(new ProducerRecord<>(topic, "k" + (i % 1000), Long.toString(System.nanoTime())));
      }
    }
    consumer.join();
    return Window.of(samples, start, warmup);
  }

  /**
   * Reads the update topic from its end on every partition (no group, read_uncommitted, as the
   * gateway's feed does) and records event sent -> update readable for each progress update.
   */
  private static Thread watchUpdates(
      String bootstrap,
      String topic,
      ConcurrentLinkedQueue<Sample> samples,
      AtomicBoolean watching) {
    Properties cp = new Properties();
    cp.put("bootstrap.servers", bootstrap);
    cp.put("isolation.level", "read_uncommitted");
    cp.put("enable.auto.commit", false);
    cp.put("fetch.max.wait.ms", 50);
    Pattern sent = Pattern.compile("sent:(\\d+)");
    KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(
            cp,
            new org.apache.kafka.common.serialization.ByteArrayDeserializer(),
            new org.apache.kafka.common.serialization.ByteArrayDeserializer());
    List<org.apache.kafka.common.TopicPartition> parts =
        c.partitionsFor(topic).stream()
            .map(p -> new org.apache.kafka.common.TopicPartition(topic, p.partition()))
            .toList();
    c.assign(parts);
    c.seekToEnd(parts);
    parts.forEach(c::position);
    Thread t =
        new Thread(
            () -> {
              try (c) {
                while (watching.get()) {
                  for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(100))) {
                    long now = System.nanoTime();
                    Matcher m = sent.matcher(new String(r.value(), StandardCharsets.ISO_8859_1));
                    if (m.find()) {
                      long sentAt = Long.parseLong(m.group(1));
                      samples.add(new Sample(sentAt, now - sentAt));
                    }
                  }
                }
              }
            },
            "fold-watch");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * The fold's exactly-once commits over the whole run, from the Streams meters of the gateway: the
   * stream thread folds nothing while it commits, so events that arrive meanwhile wait.
   */
  private static void printFoldCommits() {
    for (String stat : List.of("commit.latency.avg", "commit.latency.max", "commit.rate")) {
      ServiceMetrics.registry().getMeters().stream()
          .filter(m -> m.getId().getName().equals("kafka.stream.thread." + stat))
          .forEach(
              m ->
                  m.measure()
                      .forEach(
                          v ->
                              System.out.printf(
                                  "breakdown: fold %s %.1f (%s)%n",
                                  stat, v.getValue(), m.getId().getTag("thread.id"))));
    }
  }

  /** Waits until {@code nanoTime} reaches {@code due}: every sender keeps one shared schedule. */
  private static void paceTo(long due) {
    long wait = due - System.nanoTime();
    if (wait > 0) {
      java.util.concurrent.locks.LockSupport.parkNanos(wait);
    }
  }

  private static double ms(long[] sorted, int pct) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = Math.min(sorted.length - 1, (int) Math.ceil(pct / 100.0 * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }
}

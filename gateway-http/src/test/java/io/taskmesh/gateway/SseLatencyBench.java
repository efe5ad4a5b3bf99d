package io.taskmesh.gateway;

import io.taskmesh.devkit.LocalKafka;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
 * On-demand benchmark (not a test): event-to-SSE latency. N tasks, one SSE client on
 * {@code GET /stream/{id}} each, then progress reports ({@code POST /mesh/{id}/progress}) at a
 * fixed total rate spread over the tasks; each report carries its send time in {@code message},
 * so every client measures report-sent -> SSE update received. Baseline in the same run: raw
 * Kafka produce -> consume latency of the same rate (acks=all, one record per event).
 *
 * <p>Args: clients (1000), events/s (1000), seconds (10).
 */
public final class SseLatencyBench {
  private static final Pattern SENT = Pattern.compile("\"message\":\"sent:(\\d+)\"");
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public static void main(String[] args) throws Exception {
    int clients = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int rate = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    String bootstrap = LocalKafka.shared().bootstrapServers();

    long[] raw = rawKafka(bootstrap, rate, seconds);
    Path dir = Files.createTempDirectory("sse-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    try (Gateway g = start(dir, flows, bootstrap)) {
      String base = "http://127.0.0.1:" + g.port();
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        ids.add(TaskHttp.callTool(base, "echo"));
      }
      TaskHttp.await(base + "/tasks/" + ids.get(ids.size() - 1), n -> true, Duration.ofSeconds(60));
      ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
      CountDownLatch open = new CountDownLatch(clients);
      AtomicInteger failed = new AtomicInteger();
      List<Thread> readers = new ArrayList<>();
      for (String id : ids) {
        Thread t = new Thread(() -> read(base + "/stream/" + id, open, latencies, failed), "sse-" + id);
        t.setDaemon(true);
        t.start();
        readers.add(t);
      }
      if (!open.await(120, TimeUnit.SECONDS)) {
        throw new IllegalStateException("only " + (clients - open.getCount()) + " SSE clients connected");
      }
      Thread.sleep(1000); // every client has read its replayed "created" update
      int sent = post(base, ids, rate, seconds);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (latencies.size() < sent && System.nanoTime() < deadline) {
        Thread.sleep(50); // stragglers
      }
      long[] gw = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
      System.out.printf("SSE: %d clients, %d reports at %d/s for %d s; %d updates received (%d clients failed)%n",
          clients, sent, rate, seconds, gw.length, failed.get());
      System.out.printf("report -> SSE update: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          ms(gw, 50), ms(gw, 90), ms(gw, 99), ms(gw, 100));
      System.out.printf("raw Kafka produce -> consume at %d/s: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms%n",
          rate, ms(raw, 50), ms(raw, 90), ms(raw, 99), ms(raw, 100));
      System.out.printf("ratio p99 gateway / raw: %.1f%n", ms(gw, 99) / Math.max(0.001, ms(raw, 99)));
    }
    LocalKafka.shared().close();
    System.exit(0);
  }

  private static Gateway start(Path dir, Path flows, String bootstrap) {
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    env.put("SVC_PORT", "0");
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_STATE_DIR", dir.resolve("state").toString());
    String prefix = "ssebench-" + UUID.randomUUID().toString().substring(0, 8);
    env.put("SVC_STREAMS_APPLICATION_ID", prefix + "-app");
    env.put("SVC_TASK_EVENTS_TOPIC", prefix + ".task-events");
    env.put("SVC_TASK_UPDATES_TOPIC", prefix + ".task-updates");
    env.put("SVC_NAMESPACE", prefix);
    return Gateway.start(GatewayConfig.fromEnv(env));
  }

  private static void read(String url, CountDownLatch open, ConcurrentLinkedQueue<Long> latencies, AtomicInteger failed) {
    try {
      HttpResponse<InputStream> r = HTTP.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
          HttpResponse.BodyHandlers.ofInputStream());
      open.countDown();
      if (r.statusCode() != 200) {
        failed.incrementAndGet();
        return;
      }
      try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("data:")) {
            Matcher m = SENT.matcher(line);
            if (m.find()) {
              latencies.add(System.nanoTime() - Long.parseLong(m.group(1)));
            }
          }
        }
      }
    } catch (Exception e) {
      failed.incrementAndGet();
      open.countDown();
    }
  }

  /** Progress reports at {@code rate}/s, round-robin over the tasks, each higher than the last. */
  private static int post(String base, List<String> ids, int rate, int seconds) throws Exception {
    int total = rate * seconds;
    int posters = 8;
    AtomicInteger next = new AtomicInteger();
    long start = System.nanoTime();
    long interval = TimeUnit.SECONDS.toNanos(1) / rate;
    List<Thread> threads = new ArrayList<>();
    for (int p = 0; p < posters; p++) {
      Thread t = new Thread(() -> {
        int i;
        while ((i = next.getAndIncrement()) < total) {
          long due = start + i * interval;
          long wait = due - System.nanoTime();
          if (wait > 0) {
            java.util.concurrent.locks.LockSupport.parkNanos(wait); // pacing to the target rate
          }
          String id = ids.get(i % ids.size());
          int idx = i / ids.size(); // this task's n-th report: index form, strictly increasing
          String body = "{\"actors\":" + actors(total / ids.size() + 1) + ",\"current_actor_idx\":" + idx
              + ",\"status\":\"completed\",\"message\":\"sent:" + System.nanoTime() + "\"}";
          try {
            HttpResponse<Void> r = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/mesh/" + id + "/progress"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() != 200) {
              throw new IllegalStateException("progress answered " + r.statusCode());
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join();
    }
    double took = (System.nanoTime() - start) / 1e9;
    System.out.printf("posted %d reports in %.1f s (%.0f/s)%n", total, took, total / took);
    return total;
  }

  private static String actorsJson;

  /** As few actors as the reports per task need (the list is stored with every update). */
  private static synchronized String actors(int count) {
    if (actorsJson == null) {
      StringBuilder b = new StringBuilder("[");
      for (int i = 0; i < count; i++) {
        b.append(i == 0 ? "" : ",").append("\"a").append(i).append('"');
      }
      actorsJson = b.append(']').toString();
    }
    return actorsJson;
  }

  /** Raw Kafka: one producer (acks=all) at {@code rate}/s, one consumer; latency from the send time in the value. */
  private static long[] rawKafka(String bootstrap, int rate, int seconds) throws Exception {
    String topic = "sse-bench-raw-" + UUID.randomUUID();
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      admin.createTopics(List.of(new NewTopic(topic, 3, (short) 1))).all().get();
    }
    Properties cp = new Properties();
    cp.put("bootstrap.servers", bootstrap);
    cp.put("group.id", topic);
    cp.put("auto.offset.reset", "earliest");
    int total = rate * seconds;
    long[] out = new long[total];
    AtomicInteger got = new AtomicInteger();
    Thread consumer = new Thread(() -> {
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(cp, new StringDeserializer(), new StringDeserializer())) {
        c.subscribe(List.of(topic));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds + 60L);
        while (got.get() < total && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
            long now = System.nanoTime();
            int n = got.getAndIncrement();
            if (n < total) {
              out[n] = now - Long.parseLong(r.value());
            }
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
    try (KafkaProducer<String, String> p = new KafkaProducer<>(pp, new StringSerializer(), new StringSerializer())) {
      long start = System.nanoTime();
      long interval = TimeUnit.SECONDS.toNanos(1) / rate;
      for (int i = 0; i < total; i++) {
        long wait = start + i * interval - System.nanoTime();
        if (wait > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
        p.send(new ProducerRecord<>(topic, "k" + (i % 1000), Long.toString(System.nanoTime())));
      }
    }
    consumer.join();
    long[] sorted = Arrays.copyOf(out, Math.min(got.get(), total));
    Arrays.sort(sorted);
    return sorted;
  }

  private static double ms(long[] sorted, int pct) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = Math.min(sorted.length - 1, (int) Math.ceil(pct / 100.0 * sorted.length) - 1);
    return sorted[Math.max(0, i)] / 1e6;
  }
}

package io.taskmesh.gateway;

import io.micrometer.core.instrument.Counter;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.gateway.fly.PgFlyChannel;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * On-demand benchmark (not a test): FLY across replicas. Replica B (mesh) takes {@code POST
 * /mesh/{id}/fly}, replica A (api) has one SSE client on {@code /stream/{id}}; both share one
 * Postgres, so every event goes B -> NOTIFY -> A's listener -> the client's SSE writer.
 *
 * <p>The rate is one the client's FLY buffer (the spec's 100 events) never overflows: the posters
 * are closed-loop, at most {@link #WINDOW} events posted and not yet read by the SSE client, so the
 * writer can never hold more than that. Paced (open-loop) rounds at 80, 60, 40, 20 % of that rate
 * then find one the buffer takes without the window. Drops are counted two ways and printed: events
 * posted and never read, and the gateway's own drop counter ({@code
 * taskmesh_sse_fly_events_dropped_total}).
 *
 * <p>Baseline in the same run: raw {@code SELECT pg_notify} -> LISTEN through pgjdbc with the same
 * window, one sender connection per poster, measured before and after the FLY rounds (A-B-B-A). The
 * stages apart, same run: B alone (POST -> 200; a POST waits once 50 events wait for their NOTIFY,
 * so this is the publishing rate), and A alone (raw NOTIFY on the {@code fly} channel -> the SSE
 * client); in a breakdown round of its own (not counted) a raw LISTEN on {@code fly} times sent ->
 * NOTIFY readable.
 *
 * <p>Args: seconds per round (5), posters (4). Prints {@code /proc/loadavg} at start and end.
 */
public final class FlyBench {
  /** Events posted and not yet read by the SSE client: below the spec's 100-event buffer. */
  static final int WINDOW = 64;

  /** FLY rounds before the measured ones (the raw path gets half). */
  static final int WARMUP_SECONDS = 12;

  private static final Pattern SENT = Pattern.compile("\"sent\":(\\d+)");

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int posters = args.length > 1 ? Integer.parseInt(args[1]) : 4;
    System.out.println("load at start: " + loadavg());
    Path dir = Files.createTempDirectory("fly-bench");
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, mcp: {}}\n");
    String pg = LocalPostgres.shared().jdbcUrl();
    String prefix = "flybench-" + UUID.randomUUID().toString().substring(0, 8);
    try (Gateway a =
            TaskHttp.start(
                TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-a"), flows, "api", pg));
        Gateway b =
            TaskHttp.start(
                TaskHttp.flyReplicaEnv(prefix, dir.resolve("state-b"), flows, "mesh", pg))) {
      String baseA = "http://127.0.0.1:" + a.port();
      String id = TaskHttp.callTool(baseA, "echo");
      // the stream answers 503 until the task's store partition is ready on A
      try (SseCounter sse =
          Await.until(
              () -> SseCounter.tryOpen(a.port(), "/stream/" + id),
              c -> c != null,
              Duration.ofSeconds(60),
              "no SSE stream of the task on A")) {
        Source viaB = new HttpFly(b.port(), id);
        Source rawToA = new RawNotify(pg, PgFlyChannel.CHANNEL, id + ":");
        Source raw = new RawNotify(pg, "bench", "t:");
        // warm-up (not counted): until the JIT has compiled the paths every figure is lower; with
        // 3 s, rounds measured after the first ones were still 20-30 % faster
        windowed(viaB, sse, posters, WARMUP_SECONDS);
        try (ListenCounter warm = new ListenCounter(pg, "bench")) {
          windowed(raw, warm, posters, WARMUP_SECONDS / 2);
        }

        List<Round> raws = new ArrayList<>();
        List<Round> flys = new ArrayList<>();
        raws.add(run("raw NOTIFY/LISTEN", raw, null, pg, posters, seconds));
        flys.add(run("FLY B -> A to SSE", viaB, sse, pg, posters, seconds));
        flys.add(run("FLY B -> A to SSE", viaB, sse, pg, posters, seconds));
        raws.add(run("raw NOTIFY/LISTEN", raw, null, pg, posters, seconds));
        double rawRate = raws.stream().mapToDouble(Round::rate).average().orElseThrow();
        double flyRate = flys.stream().mapToDouble(Round::rate).average().orElseThrow();
        long dropped = flys.stream().mapToLong(Round::dropped).sum();
        System.out.printf(
            "FLY B -> A over NOTIFY to an SSE client: %.0f events/s (window %d, no buffer"
                + " overflow possible; %d dropped); raw NOTIFY/LISTEN: %.0f/s; ratio %.2f"
                + " (target >= 0.5)%n",
            flyRate, WINDOW, dropped, rawRate, flyRate / rawRate);

        run("breakdown round (not counted)", viaB, sse, pg, posters, seconds, true);

        // the stages apart
        Round bOnly = windowedHttpOnly(b.port(), id, posters, seconds);
        bOnly.print(
            "stage B: POST /mesh/{id}/fly -> 200, nobody reads (NOTIFY-bound past 50 queued)");
        Round aOnly = run("stage A: raw NOTIFY on 'fly' -> SSE", rawToA, sse, pg, posters, seconds);
        System.out.printf(
            "stages against raw: B %.2f, A %.2f, whole path %.2f%n",
            bOnly.rate() / rawRate, aOnly.rate() / rawRate, flyRate / rawRate);

        // open loop, no window: the highest of 80, 60, 40, 20 % of the closed-loop rate at which
        // the spec's buffer did not overflow
        for (int pct = 80; pct > 0; pct -= 20) {
          int paced = (int) (flyRate * pct / 100);
          Round open = paced(viaB, sse, posters, paced, seconds);
          open.print(
              "FLY paced at "
                  + paced
                  + "/s = "
                  + pct
                  + " % (open loop, load "
                  + loadavg().split(" ")[0]
                  + ")");
          if (open.dropped() == 0) {
            System.out.printf(
                "open loop without drops at %d/s = %.2f x raw NOTIFY/LISTEN%n",
                paced, paced / rawRate);
            break;
          }
        }
      }
    }
    System.out.println("load at end: " + loadavg());
    LocalPostgres.shared().close();
    LocalKafka.shared().close();
    System.exit(0);
  }

  /** A way to send one FLY-shaped event carrying its send time. */
  interface Source {
    Sender sender() throws Exception;
  }

  interface Sender extends AutoCloseable {
    /** Sends one event; returns once the sending side has answered. */
    void send(long sentNanos) throws Exception;

    /** Closes its socket or connection. */
    @Override
    void close() throws IOException, SQLException;
  }

  /** Where events are read: an SSE client, or a raw LISTEN connection; counts what it reads. */
  abstract static class Sink {
    private final AtomicLong received = new AtomicLong();
    private final ConcurrentLinkedQueue<Long> latencies = new ConcurrentLinkedQueue<>();
    private volatile Runnable listener = () -> {};
    private volatile long lastReadAt;

    /** One event read: its send time (in its text) gives a latency; the window is released. */
    final void record(String text) {
      Matcher m = SENT.matcher(text);
      if (m.find()) {
        latencies.add(System.nanoTime() - Long.parseLong(m.group(1)));
      }
      lastReadAt = System.nanoTime();
      received.incrementAndGet();
      listener.run();
    }

    /** Called for every event read; the bench's window is released here. */
    final void onEvent(Runnable l) {
      listener = l;
    }

    final long received() {
      return received.get();
    }

    /** nanoTime of the last event read. */
    final long lastReadAt() {
      return lastReadAt;
    }

    final ConcurrentLinkedQueue<Long> latencies() {
      return latencies;
    }
  }

  /** One measured round. */
  // sorted latency samples, read by index for percentiles; a round is printed, never compared
  @SuppressWarnings("ArrayRecordComponent")
  record Round(
      String name,
      long posted,
      long received,
      long dropped,
      double rate,
      long[] lat,
      long[] sendLat) {
    void print(String what) {
      System.out.printf(
          "%s: %.0f events/s; %d sent, %d read, %d dropped; sent -> read p50 %.2f ms, p99 %.2f"
              + " ms, mean %.2f ms; send answered p50 %.2f ms, p99 %.2f ms%n",
          what,
          rate,
          posted,
          received,
          dropped,
          ms(lat, 50),
          ms(lat, 99),
          mean(lat),
          ms(sendLat, 50),
          ms(sendLat, 99));
    }
  }

  static double mean(long[] values) {
    return values.length == 0 ? Double.NaN : Arrays.stream(values).average().orElseThrow() / 1e6;
  }

  private static Round run(
      String name, Source source, SseCounter sse, String pg, int posters, int seconds)
      throws Exception {
    return run(name, source, sse, pg, posters, seconds, false);
  }

  /**
   * {@code observe}: a raw LISTEN on the 'fly' channel times when each event of an SSE round is
   * readable (the breakdown). It is one more listening backend for Postgres to feed, which the raw
   * baseline does not have, so the measured rounds run without it and the breakdown has its own.
   */
  private static Round run(
      String name,
      Source source,
      SseCounter sse,
      String pg,
      int posters,
      int seconds,
      boolean observe)
      throws Exception {
    Sink sink = sse != null ? sse : new ListenCounter(pg, "bench");
    ListenCounter notified =
        sse != null && observe ? new ListenCounter(pg, PgFlyChannel.CHANNEL) : null;
    Round r = windowed(source, sink, posters, seconds);
    if (sink instanceof ListenCounter l) {
      l.close();
    }
    Round named = new Round(name, r.posted, r.received, r.dropped, r.rate, r.lat, r.sendLat);
    named.print(name + " (load " + loadavg().split(" ")[0] + ")");
    if (notified != null) {
      notified.close();
      long[] toNotify = sorted(notified.latencies());
      System.out.printf(
          "  breakdown: sent -> NOTIFY readable by a raw LISTEN p50 %.2f ms, p99 %.2f ms, mean"
              + " %.2f ms; the rest is A (listener -> SSE writer -> client)%n",
          ms(toNotify, 50), ms(toNotify, 99), mean(toNotify));
    }
    return named;
  }

  /**
   * Closed loop: each poster takes a permit of the shared window before it sends; the sink gives it
   * back when the event is read.
   */
  private static Round windowed(Source source, Sink sink, int posters, int seconds)
      throws Exception {
    Semaphore window = new Semaphore(WINDOW);
    sink.onEvent(window::release);
    return drive(source, sink, posters, seconds, 0, window);
  }

  private static Round paced(Source source, SseCounter sink, int posters, int rate, int seconds)
      throws Exception {
    sink.onEvent(() -> {});
    return drive(source, sink, posters, seconds, rate, null);
  }

  private static Round drive(
      Source source, Sink sink, int posters, int seconds, int rate, Semaphore window)
      throws Exception {
    double droppedBefore = droppedCount();
    long readBefore = sink.received();
    sink.latencies().clear();
    AtomicLong sent = new AtomicLong();
    AtomicLong ticket = new AtomicLong();
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    long interval = rate > 0 ? TimeUnit.SECONDS.toNanos(1) / rate : 0;
    List<Thread> threads = new ArrayList<>();
    ConcurrentLinkedQueue<Exception> failed = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<Long> sendLat = new ConcurrentLinkedQueue<>();
    for (int t = 0; t < posters; t++) {
      Thread thread =
          new Thread(
              () -> {
                try (Sender s = source.sender()) {
                  while (true) {
                    if (window != null) {
                      if (!window.tryAcquire(2, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("an event never arrived: window stuck");
                      }
                    } else {
                      long at = start + ticket.getAndIncrement() * interval;
                      paceTo(at);
                    }
                    long now = System.nanoTime();
                    if (now >= end) {
                      if (window != null) {
                        window.release();
                      }
                      return;
                    }
                    s.send(now);
                    sendLat.add(System.nanoTime() - now);
                    sent.incrementAndGet();
                  }
                } catch (Exception e) {
                  failed.add(e);
                }
              },
              "poster-" + t);
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    if (!failed.isEmpty()) {
      throw new IllegalStateException("a poster failed", failed.peek());
    }
    // whatever is still in flight arrives within a second, or was dropped
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
    while (sink.received() - readBefore < sent.get() && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling a counter the reader thread bumps
    }
    long received = sink.received() - readBefore;
    // up to the last event read: the wait for events that were dropped is not counted
    double took = (Math.max(end, sink.lastReadAt()) - start) / 1e9;
    long dropped = sent.get() - received;
    long counted = Math.round(droppedCount() - droppedBefore);
    if (counted != 0 && counted != dropped) {
      System.out.printf("  (the gateway counted %d FLY drops)%n", counted);
    }
    long[] lat = sink.latencies().stream().mapToLong(Long::longValue).sorted().toArray();
    return new Round("", sent.get(), received, dropped, received / took, lat, sorted(sendLat));
  }

  /** B alone: POST -> 200, as fast as the posters go; nobody subscribes on B. */
  private static Round windowedHttpOnly(int port, String id, int posters, int seconds)
      throws Exception {
    ConcurrentLinkedQueue<Long> lat = new ConcurrentLinkedQueue<>();
    AtomicLong sent = new AtomicLong();
    long start = System.nanoTime();
    long end = start + TimeUnit.SECONDS.toNanos(seconds);
    List<Thread> threads = new ArrayList<>();
    HttpFly fly = new HttpFly(port, "nobody-" + id);
    for (int t = 0; t < posters; t++) {
      Thread thread =
          new Thread(
              () -> {
                try (Sender s = fly.sender()) {
                  long now;
                  while ((now = System.nanoTime()) < end) {
                    s.send(now);
                    lat.add(System.nanoTime() - now);
                    sent.incrementAndGet();
                  }
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) {
      thread.join();
    }
    double took = (System.nanoTime() - start) / 1e9;
    return new Round("B", sent.get(), 0, 0, sent.get() / took, new long[0], sorted(lat));
  }

  private static long[] sorted(ConcurrentLinkedQueue<Long> values) {
    return values.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  private static double droppedCount() {
    Counter c = ServiceMetrics.registry().find("taskmesh.sse.fly.events.dropped").counter();
    return c == null ? 0 : c.count();
  }

  static String loadavg() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).trim();
    } catch (IOException e) {
      return "unknown";
    }
  }

  static void paceTo(long at) throws InterruptedException {
    long wait = at - System.nanoTime();
    if (wait > 0) {
      TimeUnit.NANOSECONDS.sleep(wait); // pacing the open-loop schedule
    }
  }

  static double ms(long[] sorted, int p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
  }

  static String body(long sentNanos) {
    return "{\"partial\":true,\"text\":\"tok\",\"sent\":" + sentNanos + "}";
  }

  /** POST /mesh/{id}/fly over one keep-alive plain-socket connection per poster. */
  record HttpFly(int port, String id) implements Source {
    @Override
    public Sender sender() throws IOException {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      byte[] head =
          ("POST /mesh/"
                  + id
                  + "/fly HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Content-Type: application/json\r\nContent-Length: ")
              .getBytes(StandardCharsets.US_ASCII);
      return new Sender() {
        @Override
        public void send(long sentNanos) throws IOException {
          byte[] body = body(sentNanos).getBytes(StandardCharsets.UTF_8);
          out.write(head);
          out.write((body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
          out.write(body);
          out.flush();
          String status = SseLatencyBench.readStatusAndBody(in);
          if (!status.contains(" 200 ")) {
            throw new IOException("POST /mesh/{id}/fly answered " + status);
          }
        }

        @Override
        public void close() throws IOException {
          socket.close();
        }
      };
    }
  }

  /** Raw {@code SELECT pg_notify(channel, prefix + event)}, one connection per poster. */
  record RawNotify(String pg, String channel, String prefix) implements Source {
    @Override
    public Sender sender() throws Exception {
      Connection c = DriverManager.getConnection(pg);
      PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)");
      return new Sender() {
        @Override
        public void send(long sentNanos) throws Exception {
          ps.setString(1, channel);
          ps.setString(2, prefix + body(sentNanos));
          ps.execute();
        }

        @Override
        public void close() throws SQLException {
          c.close();
        }
      };
    }
  }

  /** A raw LISTEN connection and its reader thread. */
  static final class ListenCounter extends Sink implements AutoCloseable {
    private final Connection connection;
    private volatile boolean running = true;
    private final Thread reader;

    ListenCounter(String pg, String channel) throws Exception {
      connection = DriverManager.getConnection(pg);
      try (Statement s = connection.createStatement()) {
        s.execute("LISTEN " + channel);
      }
      PGConnection listen = connection.unwrap(PGConnection.class);
      reader =
          new Thread(
              () -> {
                try {
                  while (running) {
                    PGNotification[] batch = listen.getNotifications(200);
                    if (batch != null) {
                      for (PGNotification n : batch) {
                        record(n.getParameter());
                      }
                    }
                  }
                } catch (Exception closed) {
                  // close() ends the connection under the reader
                }
              },
              "bench-listen");
      reader.setDaemon(true);
      reader.start();
    }

    @Override
    public void close() throws SQLException {
      running = false;
      try {
        reader.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // the connection is closed all the same
      }
      connection.close();
    }
  }

  /**
   * One SSE client on a plain socket (the JDK HttpClient would cost the bench more CPU than the
   * path it measures): counts {@code partial} events and reads their send time.
   */
  static final class SseCounter extends Sink implements AutoCloseable {
    private final Socket socket;

    private SseCounter(Socket socket) {
      this.socket = socket;
    }

    /** The open client, or null when the gateway did not answer 200 (yet). */
    static SseCounter tryOpen(int port, String path) {
      try {
        return open(port, path);
      } catch (IOException notYet) {
        return null;
      }
    }

    static SseCounter open(int port, String path) throws IOException {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket
          .getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      BufferedReader in =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      String status = in.readLine();
      if (status == null || !status.contains(" 200 ")) {
        socket.close();
        throw new IOException("GET " + path + " answered " + status);
      }
      SseCounter counter = new SseCounter(socket);
      Thread t = new Thread(() -> counter.read(in), "sse-counter");
      t.setDaemon(true);
      t.start();
      return counter;
    }

    private void read(BufferedReader in) {
      try {
        String line;
        boolean partial = false;
        while ((line = in.readLine()) != null) {
          if (line.startsWith("event:")) {
            partial = line.endsWith("partial");
          } else if (line.isEmpty()) {
            partial = false;
          } else if (partial && line.startsWith("data:")) {
            partial = false;
            record(line);
          }
        }
      } catch (IOException closed) {
        // the bench closed the client
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}

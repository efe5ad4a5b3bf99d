package io.taskmesh.meshapi;

import io.taskmesh.unixhttp.SseParser;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real SSE client (JDK HttpClient, streamed body, unix-http's parser): frames and comments in
 * arrival order.
 */
final class SseReader implements AutoCloseable {
  record Frame(String event, String data, String comment) {}

  final HttpResponse<InputStream> response;
  final BlockingQueue<Frame> frames = new LinkedBlockingQueue<>();
  final List<Frame> all = new CopyOnWriteArrayList<>();
  volatile boolean ended;
  private final Thread thread;

  SseReader(HttpClient http, String url) throws Exception {
    response =
        http.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60)).GET().build(),
            HttpResponse.BodyHandlers.ofInputStream());
    thread = new Thread(this::read, "sse-reader");
    thread.setDaemon(true);
    thread.start();
  }

  private void read() {
    try (InputStream body = new BufferedInputStream(response.body())) {
      SseParser parser = new SseParser(body, true);
      for (SseParser.Event e = parser.next(); e != null; e = parser.next()) {
        boolean comment = SseParser.COMMENT.equals(e.event());
        add(comment ? new Frame(null, null, ":" + e.data()) : new Frame(e.event(), e.data(), null));
      }
    } catch (Exception ignored) {
      // closed
    } finally {
      ended = true;
    }
  }

  private void add(Frame f) {
    all.add(f);
    frames.add(f);
  }

  /** The next event (comments skipped), or an AssertionError after the timeout. */
  Frame next(int seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      Frame f = frames.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (f == null) {
        throw new AssertionError("no SSE event within " + seconds + " s; got " + all);
      }
      if (f.event() != null) {
        return f;
      }
    }
  }

  boolean awaitEnd(int seconds) throws InterruptedException {
    thread.join(seconds * 1000L);
    return ended;
  }

  @Override
  public void close() throws IOException {
    response.body().close();
  }
}

package io.taskmesh.devkit;

import io.taskmesh.unixhttp.SseParser;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real SSE client for tests and the CLI: opens the stream with {@link HttpClient} and parses
 * events ({@code id:}, {@code event:}, {@code data:}, comments) as they arrive.
 */
public final class SseReader implements AutoCloseable {
  /** One SSE event; {@code comment} events carry the comment text in {@code data}. */
  public record Event(String id, String event, String data) {}

  private static final Event END = new Event(null, "__end__", null);

  private final HttpResponse<InputStream> response;
  private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final Thread reader;

  private SseReader(HttpResponse<InputStream> response) {
    this.response = response;
    this.reader = new Thread(this::read, "sse-reader");
    this.reader.setDaemon(true); // a test that forgets close() must not keep the JVM alive
    this.reader.start();
  }

  public static SseReader open(String url, String lastEventId)
      throws IOException, InterruptedException {
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(url)).header("Accept", "text/event-stream").GET();
    if (lastEventId != null) {
      req.header("Last-Event-ID", lastEventId);
    }
    HttpResponse<InputStream> resp =
        HttpClient.newBuilder()
            .connectTimeout(Duration.ofSeconds(5))
            .build()
            .send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
    return new SseReader(resp);
  }

  public int status() {
    return response.statusCode();
  }

  public String contentType() {
    return response.headers().firstValue("Content-Type").orElse("");
  }

  // END is a sentinel: only that instance ends the stream, never an equal event a server sent
  @SuppressWarnings("ReferenceEquality")
  private static boolean isEnd(Event e) {
    return e == END;
  }

  /** The next event, or null when none arrives in time or the stream ended. */
  public Event next(Duration timeout) throws InterruptedException {
    Event e = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (isEnd(e)) {
      events.add(END);
      return null;
    }
    return e;
  }

  /** Every event until the server closes the stream (or the timeout passes). */
  public List<Event> readUntilClosed(Duration timeout) throws InterruptedException {
    List<Event> out = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Event e =
          events.poll(
              Math.max(1, (deadline - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
      if (e == null) {
        break;
      }
      if (isEnd(e)) {
        events.add(END);
        return out;
      }
      out.add(e);
    }
    throw new AssertionError("SSE stream still open after " + timeout + "; got " + out);
  }

  private void read() {
    try (InputStream body = new BufferedInputStream(response.body())) {
      SseParser parser = new SseParser(body, true);
      for (SseParser.Event e = parser.next(); e != null; e = parser.next()) {
        events.add(new Event(e.id(), e.event(), e.data()));
      }
    } catch (IOException closed) {
      // the stream ended or close() cut it
    } finally {
      events.add(END);
    }
  }

  @Override
  public void close() {
    try {
      response.body().close();
    } catch (IOException ignored) {
      // closing a stream that already ended
    }
  }
}

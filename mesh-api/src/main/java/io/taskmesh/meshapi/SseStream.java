package io.taskmesh.meshapi;

import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import io.taskmesh.servicekit.sse.SseSink;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import io.taskmesh.servicekit.sse.SseWriters;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One SSE client of {@code GET {prefix}/mesh/{id}/events}. The fan-out thread only queues into the
 * client's {@link SseWriter} (never blocks on a slow client; FLY past the policy's limit is
 * dropped). Status events never go backwards on one stream; the stream closes after the first
 * terminal status. Live events that arrive before {@link #start} are held until the current status
 * has gone out first.
 */
final class SseStream implements Consumer<MeshEvent> {
  private final OutputStream out;
  private final SseWriters writers;
  private final Runnable onClose;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final List<MeshEvent> early = new ArrayList<>();
  private SseWriter writer;
  private boolean closed;
  private MeshStatus lastStatus;
  private double lastProgress = -1;

  SseStream(OutputStream out, SseWriters writers, Runnable onClose) {
    this.out = out;
    this.writers = writers;
    this.onClose = onClose;
  }

  CompletableFuture<Void> done() {
    return done;
  }

  synchronized boolean isClosed() {
    return closed || (writer != null && writer.isClosed());
  }

  /** Live event from the fan-out (held until {@link #start} has sent the current status). */
  @Override
  public synchronized void accept(MeshEvent e) {
    if (closed) {
      return;
    }
    if (writer == null) {
      early.add(e);
    } else {
      send(e, false);
    }
  }

  /** Sends the current status first, then whatever the live feed delivered meanwhile. */
  synchronized void start(MeshEvent current) {
    if (closed) {
      return;
    }
    writer = writers.open(new OutputSink(), this::ended);
    send(current, true);
    early.forEach(e -> send(e, false));
    early.clear();
  }

  private void send(MeshEvent e, boolean initial) {
    if (!MeshEvent.STATUS.equals(e.type())) {
      writer.send(new Frame("fly", Json.write(e.data()), null, true, false));
      return;
    }
    MeshStatus status = MeshStatus.find(e.data().path("status").asText()).orElse(null);
    double progress = e.data().path("progress").asDouble(0);
    if (!initial && isOlder(status, progress)) {
      return; // a stale or repeated status: never move a client backwards
    }
    lastStatus = status;
    lastProgress = progress;
    boolean terminal = status != null && status.isTerminal();
    writer.send(new Frame("status", Json.write(e.data()), null, false, terminal));
  }

  /**
   * An unknown status, a lower order, another status of the same order, less progress, or anything
   * after a terminal one.
   */
  private boolean isOlder(MeshStatus status, double progress) {
    if (status == null) {
      return true;
    }
    if (lastStatus == null) {
      return false;
    }
    int order = status.order();
    int lastOrder = lastStatus.order();
    return order < lastOrder
        || (order == lastOrder
            && (status != lastStatus || progress < lastProgress || lastStatus.isTerminal()));
  }

  void close() {
    SseWriter w;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      w = writer;
    }
    if (w != null) {
      w.close();
    } else {
      ended();
    }
  }

  private void ended() {
    synchronized (this) {
      closed = true;
      early.clear();
    }
    try {
      onClose.run();
    } finally {
      done.complete(null);
    }
  }

  /** The text of one SSE event ({@code data} is one line of JSON). */
  static String frame(String event, String data, String id) {
    return "event: "
        + event
        + "\n"
        + (id == null ? "" : "id: " + id + "\n")
        + "data: "
        + data
        + "\n\n";
  }

  /** SSE frames on the servlet response; a failed write means the client went away. */
  private final class OutputSink implements SseSink {
    @Override
    public void event(String event, String data, String id) throws IOException {
      write(frame(event, data, id));
    }

    @Override
    public void comment(String text) throws IOException {
      write(":" + text + "\n\n");
    }

    @Override
    public void retry(long millis) throws IOException {
      write("retry: " + millis + "\n\n");
    }

    private void write(String text) throws IOException {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    }

    @Override
    public boolean isOpen() {
      return !done.isDone();
    }

    @Override
    public void close() {
      // the response ends when done() completes (ended() ran just before)
    }
  }
}

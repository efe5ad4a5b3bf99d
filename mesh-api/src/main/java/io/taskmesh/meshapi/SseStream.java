package io.taskmesh.meshapi;

import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SSE client of {@code GET {prefix}/mesh/{id}/events}. The fan-out thread only queues
 * (never blocks on a slow client); a drain task on a shared executor writes frames in order. Status
 * events never go backwards on one stream; the stream closes after the first terminal status.
 * At most {@link #MAX_PENDING_FLY} FLY events wait per client; more are dropped with a warning.
 */
final class SseStream implements Consumer<MeshEvent> {
  private static final Logger LOG = LoggerFactory.getLogger(SseStream.class);
  static final int MAX_PENDING_FLY = 100;
  private static final Object KEEPALIVE = new Object();

  private final String id;
  private final OutputStream out;
  private final Executor executor;
  private final Runnable onClose;
  private final CompletableFuture<Void> done = new CompletableFuture<>();
  private final ConcurrentLinkedQueue<Object> queue = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pendingFly = new AtomicInteger();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean started;
  // touched only by the drain task (one at a time)
  private int lastOrder = -1;
  private String lastStatus;
  private double lastProgress = -1;

  SseStream(String id, OutputStream out, Executor executor, Runnable onClose) {
    this.id = id;
    this.out = out;
    this.executor = executor;
    this.onClose = onClose;
  }

  CompletableFuture<Void> done() {
    return done;
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Live event from the fan-out (queued until {@link #start} has sent the current status). */
  @Override
  public void accept(MeshEvent e) {
    if (closed.get()) {
      return;
    }
    if (MeshEvent.FLY.equals(e.type())) {
      if (pendingFly.incrementAndGet() > MAX_PENDING_FLY) {
        pendingFly.decrementAndGet();
        LOG.warn("SSE client of {} is too slow: FLY event dropped", id);
        return;
      }
    }
    queue.add(e);
    schedule();
  }

  void keepalive() {
    if (!closed.get() && started) {
      queue.add(KEEPALIVE);
      schedule();
    }
  }

  /** Sends the current status first, then whatever the live feed queued meanwhile. */
  void start(MeshEvent current) {
    queue.add(new Object[] {current});
    started = true;
    schedule();
  }

  private void schedule() {
    if (started && draining.compareAndSet(false, true)) {
      executor.execute(this::drain);
    }
  }

  private void drain() {
    try {
      while (true) {
        // the initial status is queued as a one-element array and must go out before live events
        Object next = null;
        for (Object o : queue) {
          if (o instanceof Object[]) {
            next = o;
            break;
          }
        }
        if (next != null) {
          queue.remove(next);
          write((MeshEvent) ((Object[]) next)[0], true);
          continue;
        }
        Object o = queue.poll();
        if (o == null) {
          break;
        }
        if (o == KEEPALIVE) {
          frame(":keepalive\n\n");
        } else {
          MeshEvent e = (MeshEvent) o;
          if (MeshEvent.FLY.equals(e.type())) {
            pendingFly.decrementAndGet();
          }
          write(e, false);
        }
        if (closed.get()) {
          return;
        }
      }
    } finally {
      draining.set(false);
    }
    if (!queue.isEmpty() && !closed.get()) {
      schedule();
    }
  }

  private void write(MeshEvent e, boolean initial) {
    if (closed.get()) {
      return;
    }
    if (MeshEvent.STATUS.equals(e.type())) {
      String status = e.data().path("status").asText();
      int order = MeshStatus.find(status).map(MeshStatus::order).orElse(-1);
      double progress = e.data().path("progress").asDouble(0);
      boolean older = order < lastOrder
          || (order == lastOrder && (!status.equals(lastStatus) || progress < lastProgress || lastOrder == 3));
      if (!initial && older) {
        return; // a stale or repeated status: never move a client backwards
      }
      lastOrder = order;
      lastStatus = status;
      lastProgress = progress;
      frame("event: status\ndata: " + Json.write(e.data()) + "\n\n");
      if (order == 3) {
        close();
      }
    } else {
      frame("event: fly\ndata: " + Json.write(e.data()) + "\n\n");
    }
  }

  private void frame(String text) {
    if (closed.get()) {
      return;
    }
    try {
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
    } catch (IOException | RuntimeException ex) {
      close(); // the client went away
    }
  }

  void close() {
    if (closed.compareAndSet(false, true)) {
      queue.clear();
      try {
        onClose.run();
      } finally {
        done.complete(null);
      }
    }
  }
}

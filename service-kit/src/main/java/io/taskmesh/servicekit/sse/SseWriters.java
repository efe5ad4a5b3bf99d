package io.taskmesh.servicekit.sse;

import io.taskmesh.servicekit.Threads;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The SSE clients of one endpoint: the writer threads they share, and the keepalive that goes to
 * every open one each {@link SsePolicy#keepaliveEvery()}.
 */
public final class SseWriters implements AutoCloseable {
  private final SsePolicy policy;
  private final ExecutorService writers;
  private final ScheduledExecutorService keepalive;
  private final Set<SseWriter> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger connected;

  /**
   * @param name names the threads ({@code name}-writer, {@code name}-keepalive)
   * @param threads writer threads; 0: as many as there are clients being written to at once
   */
  public SseWriters(String name, int threads, SsePolicy policy) {
    this.policy = policy;
    this.connected = SseMetrics.clients(name);
    this.writers =
        threads > 0
            ? Threads.fixedPool(name + "-writer", threads)
            : Threads.cachedPool(name + "-writer");
    this.keepalive = Threads.scheduler(name + "-keepalive");
    long every = policy.keepaliveEvery().toMillis();
    keepalive.scheduleAtFixedRate(
        () -> open.forEach(SseWriter::keepalive), every, every, TimeUnit.MILLISECONDS);
  }

  /**
   * A writer for one client, kept alive until it closes; {@code onClose} runs once when it does.
   */
  public SseWriter open(SseSink sink, Runnable onClose) {
    SseWriter[] self = new SseWriter[1];
    SseWriter w =
        new SseWriter(
            sink,
            writers,
            policy,
            () -> {
              if (open.remove(self[0])) {
                connected.decrementAndGet();
              }
              onClose.run();
            });
    self[0] = w;
    open.add(w);
    connected.incrementAndGet();
    return w;
  }

  /** Clients open now. */
  public int openCount() {
    return open.size();
  }

  /**
   * Shutdown drain: every open client gets a {@code retry:} of {@code retry} and its stream ends
   * after what is queued; waits up to {@code within} for them to close. Returns the clients still
   * open then (their connections end with the server).
   */
  public int finishAllWithRetry(Duration retry, Duration within) throws InterruptedException {
    open.forEach(w -> w.finishWithRetry(retry.toMillis()));
    long until = System.nanoTime() + within.toNanos();
    while (!open.isEmpty() && System.nanoTime() < until) {
      // no event to wait on: writers close on their own threads; poll the set briefly
      Thread.sleep(20);
    }
    return open.size();
  }

  /**
   * Stops the keepalive and the writer threads. The clients' connections are left to the server
   * that owns them: it ends them as it stops (closing them here, while the server shuts down, would
   * race its own clean-up).
   */
  @Override
  public void close() {
    keepalive.shutdownNow();
    writers.shutdownNow();
    connected.addAndGet(-open.size());
    open.clear();
  }
}

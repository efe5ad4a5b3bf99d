package io.taskmesh.servicekit.sse;

import io.taskmesh.servicekit.Threads;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SSE clients of one endpoint: the writer threads they share, and the keepalive that goes to
 * every open one each {@link SsePolicy#keepaliveEvery()}.
 */
public final class SseWriters implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SseWriters.class);

  /** How long {@link #close} waits for a write that is in progress. */
  private static final Duration STOP_WAIT = Duration.ofSeconds(2);

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
    return open(sink, onClose, UnaryOperator.identity());
  }

  /**
   * As above, the writer's drain tasks going through {@code around} (e.g. to wait for a lock the
   * caller holds while it subscribes) before they reach the shared writer threads.
   */
  public SseWriter open(SseSink sink, Runnable onClose, UnaryOperator<Executor> around) {
    SseWriter[] self = new SseWriter[1];
    SseWriter w =
        new SseWriter(
            sink,
            around.apply(writers),
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
    return finishAllWithRetry(List.of(this), retry, within);
  }

  /**
   * The shutdown drain of several endpoints at once (one bound for all of them): every open client
   * of each gets its {@code retry:}; returns the clients still open after {@code within}.
   */
  public static int finishAllWithRetry(List<SseWriters> endpoints, Duration retry, Duration within)
      throws InterruptedException {
    endpoints.forEach(e -> e.open.forEach(w -> w.finishWithRetry(retry.toMillis())));
    long until = System.nanoTime() + within.toNanos();
    while (endpoints.stream().anyMatch(e -> !e.open.isEmpty()) && System.nanoTime() < until) {
      // no event to wait on: writers close on their own threads; poll the sets briefly
      Thread.sleep(20);
    }
    return endpoints.stream().mapToInt(SseWriters::openCount).sum();
  }

  /**
   * Ends every client still open (each writer's {@code onClose} runs: it unsubscribes its feeds)
   * and stops the keepalive and the writer threads, waiting briefly for a write in progress. Call
   * it while the server still runs: a client's response must be ended before the server recycles
   * it, or a late write finds the response gone.
   */
  @Override
  public void close() {
    keepalive.shutdownNow();
    List.copyOf(open).forEach(SseWriter::close);
    writers.shutdownNow();
    try {
      if (!writers.awaitTermination(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("SSE writer threads still busy {} after close", STOP_WAIT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    connected.addAndGet(-open.size());
    open.clear();
  }
}

package io.taskmesh.sidecar;

import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.servicekit.Threads;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * x-sink's hooks ({@code SVC_SINK_HOOKS}): every final envelope is POSTed as JSON to each hook URL,
 * asynchronously (nothing waits for a hook: not the final report, not the hand-over to x-sump, not
 * the next envelope). A call that fails (connection error, timeout, 5xx, 408, 429) is retried after
 * {@code backoff}, doubled each time, up to {@code attempts} calls; other 4xx answers are not
 * retried. Failures are logged and counted. At most {@value #MAX_PENDING} calls wait at once;
 * beyond that new ones are dropped (logged).
 */
final class HookDispatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(HookDispatcher.class);
  static final int MAX_PENDING = 10_000;

  private final List<URI> hooks;
  private final int attempts;
  private final Duration backoff;
  private final Duration timeout;
  private final HttpClient http;
  private final ScheduledExecutorService retries;
  private final AtomicInteger pending = new AtomicInteger();
  private final AtomicLong delivered = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();

  HookDispatcher(CrewConfig crew) {
    this.hooks = crew.sinkHooks();
    this.attempts = crew.hookAttempts();
    this.backoff = crew.hookBackoff();
    this.timeout = crew.hookTimeout();
    this.http = hooks.isEmpty() ? null : HttpClient.newBuilder().connectTimeout(timeout).build();
    this.retries = hooks.isEmpty() ? null : Threads.scheduler("sink-hooks");
  }

  boolean enabled() {
    return !hooks.isEmpty();
  }

  /** Starts one POST per hook; returns at once. */
  void dispatch(String id, TaskStatus status, byte[] envelopeJson) {
    for (URI hook : hooks) {
      if (pending.incrementAndGet() > MAX_PENDING) {
        pending.decrementAndGet();
        failed.incrementAndGet();
        LOG.warn("hook {} for {} dropped: {} calls already pending", hook, id, MAX_PENDING);
        continue;
      }
      HttpRequest req =
          HttpRequest.newBuilder(hook)
              .timeout(timeout)
              .header("Content-Type", "application/json")
              .header("X-Svc-Task-Id", id)
              .header("X-Svc-Status", status.wire())
              .POST(HttpRequest.BodyPublishers.ofByteArray(envelopeJson))
              .build();
      call(req, id, 1);
    }
  }

  private void call(HttpRequest req, String id, int attempt) {
    http.sendAsync(req, HttpResponse.BodyHandlers.discarding())
        .whenComplete(
            (r, ex) -> {
              int code = r == null ? 0 : r.statusCode();
              if (ex == null && code / 100 == 2) {
                delivered.incrementAndGet();
                pending.decrementAndGet();
                return;
              }
              boolean retryable = ex != null || code / 100 == 5 || code == 408 || code == 429;
              String why = ex != null ? ex.toString() : "HTTP " + code;
              if (retryable && attempt < attempts) {
                long delay = backoff.toMillis() << Math.min(20, attempt - 1);
                LOG.info(
                    "hook {} for {} failed ({}), retry {} of {} in {} ms",
                    req.uri(),
                    id,
                    why,
                    attempt,
                    attempts - 1,
                    delay);
                try {
                  retries.schedule(() -> call(req, id, attempt + 1), delay, TimeUnit.MILLISECONDS);
                  return;
                } catch (RejectedExecutionException closed) {
                  why = why + " (shutting down)";
                }
              }
              failed.incrementAndGet();
              pending.decrementAndGet();
              LOG.warn("hook {} for {} failed after {} call(s): {}", req.uri(), id, attempt, why);
            });
  }

  long delivered() {
    return delivered.get();
  }

  long failed() {
    return failed.get();
  }

  int pending() {
    return pending.get();
  }

  /** Waits up to 5 s for pending calls, then stops retrying. */
  @Override
  public void close() {
    if (retries == null) {
      return;
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (pending.get() > 0 && System.nanoTime() < deadline) {
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    retries.shutdownNow();
  }
}

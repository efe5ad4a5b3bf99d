package io.taskmesh.sidecar;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.servicekit.Threads;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Stops waiting for the runtime once the envelope's task ended elsewhere while its handler runs: a
 * client canceled it, or its deadline passed. Without it an actor sits out a canceled handler (a
 * minute-long model call, say) before it takes its next envelope, and every task behind it waits.
 *
 * <p>The first check comes after {@code every}, so a short call costs nothing, then one per {@code
 * every} while the call lasts. Giving up interrupts the waiting thread, which closes the runtime
 * connection; Python cannot stop a running thread, so the handler's call runs to its end in the
 * runtime and its answer goes to a closed connection.
 */
final class TaskEndWatch {
  /** One daemon thread for the whole process: a check is one short HTTP request. */
  private static final ScheduledExecutorService TIMER = Threads.scheduler("task-end-watch");

  private final Predicate<Envelope> ended;
  private final Duration every;

  TaskEndWatch(Predicate<Envelope> ended, Duration every) {
    this.ended = ended;
    this.every = every;
  }

  /**
   * Runs {@code invoke} on this thread; {@link InvokeResult.Abandoned} when the task ended while it
   * ran.
   */
  InvokeResult call(Envelope e, Supplier<InvokeResult> invoke) {
    Call call = new Call(Thread.currentThread());
    long ms = every.toMillis();
    ScheduledFuture<?> checks =
        TIMER.scheduleWithFixedDelay(
            () -> {
              if (call.running() && ended.test(e)) {
                call.abandon();
              }
            },
            ms,
            ms,
            TimeUnit.MILLISECONDS);
    InvokeResult result;
    try {
      result = invoke.get();
    } finally {
      checks.cancel(false);
    }
    if (call.finish()) {
      Thread.interrupted(); // ours: the caller goes on to Kafka calls that must not see it
      return new InvokeResult.Abandoned();
    }
    return result;
  }

  /** One call: interrupted at most once, and never after it finished. */
  private static final class Call {
    private final Thread thread;
    private boolean running = true;
    private boolean abandoned;

    Call(Thread thread) {
      this.thread = thread;
    }

    synchronized boolean running() {
      return running;
    }

    synchronized void abandon() {
      if (running && !abandoned) {
        abandoned = true;
        thread.interrupt();
      }
    }

    /** Ends the call; whether it was abandoned. */
    synchronized boolean finish() {
      running = false;
      return abandoned;
    }
  }
}

package io.taskmesh.sidecar;

import io.taskmesh.servicekit.Threads;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The {@code received} and {@code processing} events of one envelope, held back for a short while
 * ({@link #HOLD}). A runtime call that ends within it takes them into its batch's transaction,
 * ahead of its {@code completed} event: three events in one request and one commit instead of a
 * produce request of their own and a flush before the commit, a round trip on every hop. A call
 * still running when the hold ends has them sent live at that moment, and every later event of the
 * envelope goes live too, so a long handler shows as received and processing while it runs, at most
 * {@link #HOLD} late.
 *
 * <p>Either way each event reaches the log once and in the same order (received, processing,
 * completed; the next actor's reports only after the commit that hands it the envelope); a batch
 * rolled back takes its held events with it, and its redelivery reports them again, as a live event
 * of a rolled-back batch would be reported twice.
 */
final class HeldProgress {
  /**
   * How long events wait for the call to end. Far below what a person watching a stream notices,
   * far above the runtime call of a trivial handler.
   */
  static final Duration HOLD = Duration.ofMillis(50);

  /** One JVM-wide timer thread: dev runs every sidecar in one JVM. */
  private static final ScheduledThreadPoolExecutor TIMER = timer();

  private final Consumer<Outcome.Output> sendNow;
  private final List<Outcome.Output> held = new ArrayList<>(2);
  private final ScheduledFuture<?> release;
  private boolean live;

  private HeldProgress(Consumer<Outcome.Output> sendNow, Duration hold) {
    this.sendNow = sendNow;
    this.release = TIMER.schedule(this::goLive, hold.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Starts holding the events of one envelope, from now.
   *
   * @param sendNow sends an event on its own, not waiting (the log's progress producer)
   */
  static HeldProgress start(Consumer<Outcome.Output> sendNow) {
    return start(sendNow, HOLD);
  }

  static HeldProgress start(Consumer<Outcome.Output> sendNow, Duration hold) {
    return new HeldProgress(sendNow, hold);
  }

  /** Holds {@code event}, or sends it now once the hold is over. */
  synchronized void add(Outcome.Output event) {
    if (live) {
      sendNow.accept(event);
    } else {
      held.add(event);
    }
  }

  /** The hold is over: what is held is sent now, and what comes later goes at once. */
  synchronized void goLive() {
    if (live) {
      return;
    }
    live = true;
    held.forEach(sendNow);
    held.clear();
  }

  /**
   * Ends the hold: the events still held, for the caller's transaction (empty when they were sent
   * live). Later events go live.
   */
  synchronized List<Outcome.Output> take() {
    release.cancel(false);
    live = true;
    List<Outcome.Output> taken = List.copyOf(held);
    held.clear();
    return taken;
  }

  /** The outcome with the held events first: they come before everything the call produced. */
  Outcome prependTo(Outcome o) {
    List<Outcome.Output> taken = take();
    if (taken.isEmpty() || o.kind() == Outcome.Kind.EXIT_UNCOMMITTED) {
      // nothing is committed: the envelope is delivered again and reports again
      return o;
    }
    List<Outcome.Output> outputs = new ArrayList<>(taken.size() + o.outputs().size());
    outputs.addAll(taken);
    outputs.addAll(o.outputs());
    return new Outcome(List.copyOf(outputs), o.kind(), o.afterCommit(), o.failure());
  }

  private static ScheduledThreadPoolExecutor timer() {
    ScheduledThreadPoolExecutor t =
        new ScheduledThreadPoolExecutor(1, Threads.daemon("progress-hold"));
    t.setRemoveOnCancelPolicy(true); // a call that ends in time leaves nothing in the queue
    return t;
  }

  /** Holds whose time has not come and that were not taken, in this JVM (tests). */
  static int pendingTimers() {
    return TIMER.getQueue().size();
  }
}

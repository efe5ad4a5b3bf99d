package io.taskmesh.gateway.follow;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one way every edge follows a task (the REST stream, A2A, MCP, push notifications). Each
 * subscribes to the live feed first and reads the store second, so no update falls between the two;
 * the store is read on {@code reads}, never on a feed thread (feed threads serve every task and
 * must not block); a state the caller may not see ({@code visible}, the owner rule of {@link
 * TaskOwners}) is never handed over.
 */
public final class TaskFollower {
  private static final Logger LOG = LoggerFactory.getLogger(TaskFollower.class);

  private final TaskQueries store;
  private final UpdateFeed feed;
  private final Executor reads;
  private final ScheduledExecutorService timers;

  /**
   * @param queries the task view; reads here never wait for a task created a moment ago (a read on
   *     a shared executor must not park it)
   * @param reads where the store is read after an update
   * @param timers where time limits run
   */
  public TaskFollower(
      TaskQueries queries, UpdateFeed feed, Executor reads, ScheduledExecutorService timers) {
    this.store = NewTaskQueries.withoutWaiting(queries);
    this.feed = feed;
    this.reads = reads;
    this.timers = timers;
  }

  /** What a caller may see: the task of {@code owner} (null: anonymous), by the one owner rule. */
  public static Predicate<TaskState> ownedBy(String owner) {
    return s -> TaskOwners.visibleTo(s, owner);
  }

  /** Every state, for callers that checked visibility before following. */
  public static Predicate<TaskState> anyOwner() {
    return s -> true;
  }

  /**
   * Hands {@code listener} the task's state once now and again after each of its updates, until the
   * returned handle is closed. States are read on several threads, so one may come after a newer
   * one: a listener that cares compares {@link TaskState#seq()}. A read that fails (the view is
   * moving) is skipped; the next update reads again.
   */
  public AutoCloseable states(
      String id, Predicate<TaskState> visible, Consumer<TaskState> listener) {
    return states(id, visible, listener, TaskFollower::everyUpdate, true);
  }

  /**
   * As {@link #states}, reading the store again only after the updates that pass {@code readAfter},
   * and each time the state without its history (an empty list): for a listener that acts on some
   * states only (a final one, a pause), which an update says by itself, and never on the history. A
   * read with the history is a range read of every update the task had, and a task has an update
   * per progress report.
   */
  public AutoCloseable statesWithoutHistory(
      String id,
      Predicate<TaskState> visible,
      Consumer<TaskState> listener,
      Predicate<TaskUpdate> readAfter) {
    return states(id, visible, listener, readAfter, false);
  }

  private AutoCloseable states(
      String id,
      Predicate<TaskState> visible,
      Consumer<TaskState> listener,
      Predicate<TaskUpdate> readAfter,
      boolean withHistory) {
    AutoCloseable sub = afterEachUpdate(id, visible, listener, readAfter, withHistory);
    reads.execute(() -> read(id, visible, listener, withHistory));
    return sub;
  }

  /** As {@link #states}, without the state the task has now: only what each update leaves. */
  public AutoCloseable afterEachUpdate(
      String id, Predicate<TaskState> visible, Consumer<TaskState> listener) {
    return afterEachUpdate(id, visible, listener, TaskFollower::everyUpdate, true);
  }

  private AutoCloseable afterEachUpdate(
      String id,
      Predicate<TaskState> visible,
      Consumer<TaskState> listener,
      Predicate<TaskUpdate> readAfter,
      boolean withHistory) {
    return feed.subscribe(
        id,
        u -> {
          if (readAfter.test(u)) {
            reads.execute(() -> read(id, visible, listener, withHistory));
          }
        });
  }

  @SuppressWarnings("UnusedVariable") // a predicate over updates that takes each of them
  private static boolean everyUpdate(TaskUpdate u) {
    return true;
  }

  /**
   * Whether the task may be final after this update: a final one, or one that names no status (then
   * the state must be read to know).
   */
  public static boolean mayBeFinal(TaskUpdate u) {
    return u.status() == null || u.isFinal();
  }

  /**
   * The task's updates as they come, on the feed thread, without any store read: for a receiver
   * that keeps what it needs from the updates alone and hands every read or network call to its own
   * executor (A2A push notifications note only whether the A2A state changed).
   */
  public AutoCloseable liveUpdates(String id, Consumer<TaskUpdate> listener) {
    return feed.subscribe(id, listener);
  }

  /**
   * Completes with the task's first state that satisfies {@code until} (checked now and after each
   * update). With a {@code timeout} above zero it completes after that time with the state the task
   * has then, or empty when it has none the caller may see.
   */
  public CompletableFuture<Optional<TaskState>> until(
      String id, Predicate<TaskState> visible, Predicate<TaskState> until, Duration timeout) {
    return until(id, visible, until, timeout, TaskFollower::everyUpdate, true);
  }

  /**
   * As {@link #until}, reading the store after the updates that pass {@code readAfter} only: those
   * after which the state may satisfy {@code until}; with or without the history.
   */
  private CompletableFuture<Optional<TaskState>> until(
      String id,
      Predicate<TaskState> visible,
      Predicate<TaskState> until,
      Duration timeout,
      Predicate<TaskUpdate> readAfter,
      boolean withHistory) {
    CompletableFuture<Optional<TaskState>> done = new CompletableFuture<>();
    AutoCloseable sub =
        states(
            id,
            visible,
            s -> {
              if (until.test(s)) {
                done.complete(Optional.of(s));
              }
            },
            readAfter,
            withHistory);
    done.whenComplete((s, e) -> Subscriptions.closeQuietly(sub));
    if (!timeout.isZero() && !timeout.isNegative()) {
      timers.schedule(
          () -> {
            if (!done.isDone()) {
              done.complete(readNow(id, withHistory).filter(visible));
            }
          },
          timeout.toMillis(),
          TimeUnit.MILLISECONDS);
    }
    return done;
  }

  /**
   * Completes once the task is final (at once when it already is), with its state without the
   * history (an empty list): for a caller that answers with the result or the error.
   */
  public CompletableFuture<Optional<TaskState>> finalState(
      String id, Predicate<TaskState> visible) {
    // a state is final only once a final update was folded: the others need no read
    return until(id, visible, TaskState::isFinal, Duration.ZERO, TaskFollower::mayBeFinal, false);
  }

  /**
   * The task's updates, each once and in sequence order, after {@code afterSeq}: the live feed is
   * subscribed first, then the stored state is read and handed to {@code onState} (empty when it is
   * not readable yet or not the caller's: live updates then follow alone), then its history is
   * replayed when {@code withHistory} (otherwise the receiver took the state whole and gets only
   * what is newer), then the live updates that arrived meanwhile and those to come.
   */
  public AutoCloseable updates(
      String id,
      long afterSeq,
      Predicate<TaskState> visible,
      boolean withHistory,
      Consumer<Optional<TaskState>> onState,
      Consumer<TaskUpdate> listener) {
    OrderedUpdates ordered = new OrderedUpdates(afterSeq, listener);
    AutoCloseable sub = feed.subscribe(id, ordered::live);
    reads.execute(
        () -> {
          Optional<TaskState> state = readNow(id, true).filter(visible);
          onState.accept(state);
          ordered.replay(
              withHistory ? state.map(TaskState::history).orElse(List.of()) : List.of(),
              state.map(TaskState::seq).orElse(0L));
        });
    return sub;
  }

  private void read(
      String id, Predicate<TaskState> visible, Consumer<TaskState> then, boolean withHistory) {
    readNow(id, withHistory).filter(visible).ifPresent(then);
  }

  private Optional<TaskState> readNow(String id, boolean withHistory) {
    try {
      return withHistory ? store.get(id) : store.getWithoutHistory(id);
    } catch (RuntimeException e) {
      LOG.debug("task {} not readable: {}", id, e.getMessage());
      return Optional.empty();
    }
  }
}

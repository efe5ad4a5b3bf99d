package io.taskmesh.gateway.follow;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One task followed by a receiver that must know whether the task is there before it answers its
 * client (an SSE stream answers 404 before any header), where {@link TaskFollower} serves receivers
 * that follow asynchronously. {@link #open} subscribes first and reads the store second; what
 * arrives before {@link #start} is held, then passed on after the stored history, each update once
 * and in sequence order ({@link OrderedUpdates}). Closing it ends the subscription.
 */
public final class StreamFollow implements AutoCloseable {
  private final CountDownLatch firstUpdate = new CountDownLatch(1);
  private final OrderedUpdates ordered;
  private final AutoCloseable subscription;
  private volatile Consumer<TaskUpdate> listener;
  private Optional<TaskState> state = Optional.empty();

  /**
   * Opens a follow of task {@code id}: the live feed is subscribed first, then the store read on
   * the calling thread. A task created a moment ago that the store does not have yet is waited for
   * until its first update comes, bounded as every read of a new task is ({@link NewTaskQueries});
   * the store is then read once more and not waited on beyond that (FLY reaches only streams open
   * when it is sent, so a stream must not wait for a fold it could follow live). Updates after
   * {@code afterSeq} are held until {@link #start}. The caller closes what it opened.
   */
  public static StreamFollow open(TaskQueries queries, UpdateFeed feed, String id, long afterSeq)
      throws InterruptedException {
    StreamFollow follow = new StreamFollow(feed, id, afterSeq);
    try {
      TaskQueries store = NewTaskQueries.withoutWaiting(queries);
      Optional<TaskState> state = store.get(id);
      Optional<Duration> wait = NewTaskQueries.waitFor(queries, id);
      if (state.isEmpty()
          && wait.isPresent()
          && follow.firstUpdate.await(wait.get().toMillis(), TimeUnit.MILLISECONDS)) {
        state = store.get(id);
      }
      follow.state = state;
      return follow;
    } catch (InterruptedException | RuntimeException e) {
      follow.close();
      throw e;
    }
  }

  private StreamFollow(UpdateFeed feed, String id, long afterSeq) {
    // OrderedUpdates holds live updates back until the replay, which comes after start() has set
    // the listener, so nothing is passed on before there is someone to take it
    this.ordered = new OrderedUpdates(afterSeq, u -> listener.accept(u));
    this.subscription =
        feed.subscribe(
            id,
            u -> {
              firstUpdate.countDown();
              ordered.live(u);
            });
  }

  /**
   * The task's state as read when the follow opened; empty when the store did not have it yet (the
   * task may still {@link #exists()}: its updates are on the feed).
   */
  public Optional<TaskState> state() {
    return state;
  }

  /** Whether the task is there: stored, or seen on the feed while the follow opened. */
  public boolean exists() {
    return state.isPresent() || firstUpdate.getCount() == 0;
  }

  /**
   * Passes {@code to} the stored history after the follow's starting point, then the updates held
   * meanwhile, then the live ones as they come. Called once.
   */
  public void start(Consumer<TaskUpdate> to) {
    this.listener = to;
    ordered.replay(state.map(TaskState::history).orElse(List.of()));
  }

  @Override
  public void close() {
    Subscriptions.closeQuietly(subscription);
  }
}

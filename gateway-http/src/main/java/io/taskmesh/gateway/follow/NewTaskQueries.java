package io.taskmesh.gateway.follow;

import io.taskmesh.schemas.TaskIds;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A task id handed out always resolves. The gateway answers a client as soon as the task's created
 * event is in the log, but the fold (here or on the replica that owns the key) may not have read it
 * yet, so a read right after creation (an SSE stream, MCP {@code tasks/result}, an A2A resubscribe)
 * could find nothing. Every route reads tasks through this: an id created less than {@code wait}
 * ago waits for its task (woken by the task's first update on the feed, re-checked now and then in
 * case the update came from a replica we do not hear), up to {@code wait} after its creation; any
 * other id answers at once.
 */
public final class NewTaskQueries implements TaskQueries {
  /** How often a waiting read looks again when no update wakes it. */
  private static final Duration RECHECK = Duration.ofMillis(200);

  /** Clocks of two replicas may differ this much; an id from further ahead is not ours. */
  private static final Duration CLOCK_SKEW = Duration.ofSeconds(5);

  private final TaskQueries view;
  private final UpdateFeed feed;
  private final Duration wait;
  private final Clock clock;

  public NewTaskQueries(TaskQueries view, UpdateFeed feed, Duration wait, Clock clock) {
    this.view = view;
    this.feed = feed;
    this.wait = wait;
    this.clock = clock;
  }

  @Override
  public Optional<TaskState> get(String taskId) {
    Optional<TaskState> found = view.get(taskId);
    if (found.isPresent()) {
      return found;
    }
    Optional<Instant> waitUntil = waitUntil(taskId);
    if (waitUntil.isEmpty()) {
      return found;
    }
    Semaphore updated = new Semaphore(0);
    AutoCloseable subscription = feed.subscribe(taskId, u -> updated.release());
    try {
      while (true) {
        found = view.get(taskId);
        Duration left = Duration.between(clock.instant(), waitUntil.get());
        if (found.isPresent() || left.isNegative() || left.isZero()) {
          return found;
        }
        updated.tryAcquire(
            Math.min(left.toMillis(), RECHECK.toMillis()) + 1, TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return found;
    } finally {
      Subscriptions.closeQuietly(subscription);
    }
  }

  /**
   * The store as it is now, for reads that must not wait: whether an id is free before a create,
   * and reads on feed or executor threads that other tasks share.
   */
  public static TaskQueries withoutWaiting(TaskQueries queries) {
    return queries instanceof NewTaskQueries n ? n.view : queries;
  }

  /** How long a read of {@code taskId} through {@code queries} may still wait for it, if at all. */
  static Optional<Duration> waitFor(TaskQueries queries, String taskId) {
    if (!(queries instanceof NewTaskQueries n)) {
      return Optional.empty();
    }
    return n.waitUntil(taskId).map(until -> Duration.between(n.clock.instant(), until));
  }

  /** Until when a read of {@code taskId} may wait, if its task was created a moment ago. */
  public Optional<Instant> waitUntil(String taskId) {
    Instant now = clock.instant();
    return TaskIds.createdAt(taskId)
        .filter(created -> created.isBefore(now.plus(CLOCK_SKEW)))
        .map(created -> created.plus(wait))
        .filter(until -> until.isAfter(now));
  }

  @Override
  public Optional<TaskState> getLocal(String taskId) {
    return view.getLocal(taskId);
  }

  @Override
  public Optional<Boolean> ownsLocally(String taskId) {
    return view.ownsLocally(taskId);
  }

  @Override
  public List<TaskState> localTasksOf(String owner) {
    return view.localTasksOf(owner);
  }

  @Override
  public List<TaskState> tasksOf(String owner) {
    return view.tasksOf(owner);
  }
}

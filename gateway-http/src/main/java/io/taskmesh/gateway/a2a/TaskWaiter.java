package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.UpdateFeed;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Waits, without a thread, for a task to reach a state: blocking sends, cancel, read-your-writes.
 */
final class TaskWaiter {
  private final OwnedTasks tasks;
  private final UpdateFeed feed;
  private final Executor checks;
  private final ScheduledExecutorService timers;

  /**
   * @param checks where a state is re-read after an update (feed threads must not block)
   * @param timers where the time limits run
   */
  TaskWaiter(OwnedTasks tasks, UpdateFeed feed, Executor checks, ScheduledExecutorService timers) {
    this.tasks = tasks;
    this.feed = feed;
    this.checks = checks;
    this.timers = timers;
  }

  /**
   * Completes with the task's state once it satisfies {@code until} (checked on every live update
   * and once right after subscribing); after {@code timeoutMs} (0 = no limit) with whatever state
   * it has then, or TaskNotFound when it has none.
   */
  CompletableFuture<TaskState> until(String id, Predicate<TaskState> until, long timeoutMs) {
    CompletableFuture<TaskState> done = new CompletableFuture<>();
    Consumer<TaskUpdate> check =
        u -> {
          if (!done.isDone()) {
            TaskState fromUpdate = tasks.read(id).filter(s -> s.seq() >= u.seq()).orElse(null);
            if (fromUpdate != null && until.test(fromUpdate)) {
              done.complete(fromUpdate);
            }
          }
        };
    AutoCloseable sub = feed.subscribe(id, u -> checks.execute(() -> check.accept(u)));
    done.whenComplete((s, e) -> Subscriptions.closeQuietly(sub));
    tasks.read(id).filter(until).ifPresent(done::complete);
    if (timeoutMs > 0) {
      timers.schedule(
          () -> {
            if (!done.isDone()) {
              tasks
                  .read(id)
                  .ifPresentOrElse(
                      done::complete,
                      () -> done.completeExceptionally(A2aException.taskNotFound(id)));
            }
          },
          timeoutMs,
          TimeUnit.MILLISECONDS);
    }
    return done;
  }
}

package io.taskmesh.gateway.a2a.push;

import io.taskmesh.topology.TaskQueries;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this replica delivers a task's pushes: the one that owns the task's key in the fold
 * ({@link TaskQueries#ownsLocally}), so an update is delivered once, not once per replica.
 */
final class DeliveringReplica {
  private static final Logger LOG = LoggerFactory.getLogger(DeliveringReplica.class);

  /** While the fold rebalances nobody knows the owner: ask again this often, this many times. */
  private static final long OWNER_RETRY_MS = 500;

  private static final int OWNER_RETRIES = 60;

  private final TaskQueries queries;
  private final ScheduledExecutorService scheduler;

  DeliveringReplica(TaskQueries queries, ScheduledExecutorService scheduler) {
    this.queries = queries;
    this.scheduler = scheduler;
  }

  /** Completes with whether this replica owns the task; asks again while that is unknown. */
  CompletableFuture<Boolean> delivers(String taskId) {
    return owner(taskId, 0);
  }

  private CompletableFuture<Boolean> owner(String taskId, int asked) {
    Optional<Boolean> owns = queries.ownsLocally(taskId);
    if (owns.isPresent()) {
      return CompletableFuture.completedFuture(owns.get());
    }
    if (asked >= OWNER_RETRIES) {
      LOG.warn(
          "push for task {}: its owner stayed unknown for {} s; this replica does not deliver",
          taskId,
          OWNER_RETRIES * OWNER_RETRY_MS / 1000);
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Boolean> next = new CompletableFuture<>();
    scheduler.schedule(
        () -> owner(taskId, asked + 1).whenComplete((v, e) -> next.complete(e == null && v)),
        OWNER_RETRY_MS,
        TimeUnit.MILLISECONDS);
    return next;
  }
}

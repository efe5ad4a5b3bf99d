package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.follow.TaskFollower;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The push configs this replica knows, by task: every replica applies every stored config (from the
 * {@link PushConfigStore} it follows, and its own writes at once), so any replica answers a config
 * lookup and watches the task's updates.
 */
final class PushWatches implements AutoCloseable {
  private final Map<String, TaskWatch> watches = new ConcurrentHashMap<>();
  private final TaskFollower follower;
  private final Function<TaskWatch.StateChange, CompletableFuture<Void>> deliver;
  private final Executor deliveryExecutor;

  PushWatches(
      TaskFollower follower,
      Function<TaskWatch.StateChange, CompletableFuture<Void>> deliver,
      Executor deliveryExecutor) {
    this.follower = follower;
    this.deliver = deliver;
    this.deliveryExecutor = deliveryExecutor;
  }

  void apply(PushConfigStore.Entry entry) {
    watches
        .computeIfAbsent(
            entry.taskId(), id -> new TaskWatch(id, follower, deliver, deliveryExecutor))
        .put(entry);
  }

  /** Forgets a config; a task left without configs is forgotten too. */
  boolean unapply(String taskId, String configId) {
    TaskWatch w = watches.get(taskId);
    if (w == null) {
      return false;
    }
    synchronized (w) {
      boolean removed = w.remove(configId);
      if (w.isEmpty()) {
        watches.remove(taskId, w);
      }
      return removed;
    }
  }

  /** The config {@code configId} of the task, or its first config when that is null. */
  Optional<ObjectNode> get(String taskId, String configId) {
    TaskWatch w = watches.get(taskId);
    return w == null ? Optional.empty() : w.get(configId).map(PushConfigStore.Entry::config);
  }

  List<ObjectNode> list(String taskId) {
    TaskWatch w = watches.get(taskId);
    return w == null ? List.of() : w.all().stream().map(PushConfigStore.Entry::config).toList();
  }

  @Override
  public void close() {
    watches.values().forEach(TaskWatch::stopFollowing);
  }
}

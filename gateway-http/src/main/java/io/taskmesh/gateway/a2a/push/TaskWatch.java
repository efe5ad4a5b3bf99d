package io.taskmesh.gateway.a2a.push;

import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.schemas.TaskUpdate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * One task's push configs and, while the task is live and has configs, its feed subscription. For
 * each update the feed thread only notes whether the A2A state changed and queues the change; what
 * reads the task store or the network runs on the delivery executor, so a slow store or target
 * never holds up the feed. The deliveries of one task run one after another, in the order of the
 * changes.
 */
final class TaskWatch {
  /** A change of the task's A2A state, with the configs registered when it came. */
  record StateChange(TaskUpdate update, List<PushConfigStore.Entry> targets, boolean terminal) {}

  private final String taskId;
  private final TaskFollower follower;
  private final Function<StateChange, CompletableFuture<Void>> deliver;
  private final Executor deliveryExecutor;
  private final Map<String, PushConfigStore.Entry> configs = new LinkedHashMap<>();
  private AutoCloseable subscription;
  private A2aState lastState;
  private CompletableFuture<Void> deliveries = CompletableFuture.completedFuture(null);

  TaskWatch(
      String taskId,
      TaskFollower follower,
      Function<StateChange, CompletableFuture<Void>> deliver,
      Executor deliveryExecutor) {
    this.taskId = taskId;
    this.follower = follower;
    this.deliver = deliver;
    this.deliveryExecutor = deliveryExecutor;
  }

  /** Adds or replaces a config; starts following the feed unless the task has ended. */
  synchronized void put(PushConfigStore.Entry entry) {
    configs.put(entry.configId(), entry);
    if (lastState == null) {
      lastState = A2aState.fromWire(entry.state());
    }
    if (subscription == null && !lastState.isTerminal()) {
      subscription = follower.liveUpdates(taskId, this::onUpdate);
    }
  }

  /** Removes a config; with none left the feed is no longer followed. */
  synchronized boolean remove(String configId) {
    boolean removed = configs.remove(configId) != null;
    if (configs.isEmpty()) {
      stopFollowing();
    }
    return removed;
  }

  synchronized boolean isEmpty() {
    return configs.isEmpty();
  }

  /** The config {@code configId}, or the first one when it is null. */
  synchronized Optional<PushConfigStore.Entry> get(String configId) {
    if (configId == null) {
      return configs.values().stream().findFirst();
    }
    return Optional.ofNullable(configs.get(configId));
  }

  synchronized List<PushConfigStore.Entry> all() {
    return List.copyOf(configs.values());
  }

  synchronized void stopFollowing() {
    Subscriptions.closeQuietly(subscription);
    subscription = null;
  }

  /** Feed thread: never blocks and never reads the store. */
  private void onUpdate(TaskUpdate u) {
    A2aState state = A2aState.of(u.status());
    synchronized (this) {
      if (state == lastState || configs.isEmpty()) {
        return;
      }
      lastState = state;
      StateChange change = new StateChange(u, List.copyOf(configs.values()), state.isTerminal());
      if (change.terminal()) {
        stopFollowing();
      }
      deliveries = deliveries.thenComposeAsync(v -> deliver.apply(change), deliveryExecutor);
    }
  }
}

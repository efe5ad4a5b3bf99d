package io.taskmesh.gateway;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskFold;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import io.taskmesh.topology.ViewUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The task ports of the gateway in memory: appended events are folded at once with topology's own
 * {@link TaskFold}, so reads and live updates behave like the Kafka view's (only without the
 * asynchronous delay). Records every appended event, so a test can say a refused request changed
 * nothing. Switches make the log or the view fail the way the real ones do.
 */
final class InMemoryTaskView implements TaskQueries, TaskCommands, UpdateFeed {
  private final Map<String, TaskState> tasks = new ConcurrentHashMap<>();
  private final List<TaskEvent> appended = new CopyOnWriteArrayList<>();
  private final Map<String, List<Consumer<TaskUpdate>>> subscribers = new ConcurrentHashMap<>();
  private final List<Consumer<TaskUpdate>> everyTask = new CopyOnWriteArrayList<>();
  private volatile boolean logDown;
  private volatile boolean viewDown;
  private final List<TaskEvent> held = new ArrayList<>();
  private boolean foldLater;

  @Override
  public void append(TaskEvent event) {
    if (logDown) {
      throw new EventLogException("in-memory log is down", null);
    }
    synchronized (this) {
      appended.add(event);
      if (foldLater) {
        held.add(event);
        return;
      }
    }
    fold(event);
  }

  private void fold(TaskEvent event) {
    Optional<TaskUpdate> update;
    synchronized (this) {
      Optional<TaskFold.Result> folded = TaskFold.apply(tasks.get(event.taskId()), event);
      folded.ifPresent(r -> tasks.put(event.taskId(), r.state()));
      update = folded.map(TaskFold.Result::update);
    }
    // outside the lock, as the real feed delivers from its own thread
    update.ifPresent(u -> subscribers.getOrDefault(u.id(), List.of()).forEach(l -> l.accept(u)));
    update.ifPresent(u -> everyTask.forEach(l -> l.accept(u)));
  }

  /**
   * With {@code later}, appended events are in the log but not folded until {@link #foldHeld()}: a
   * fold that lags behind the log, as the real one does for a moment after each append.
   */
  synchronized void foldLater(boolean later) {
    foldLater = later;
  }

  /** Folds the events held back, in order, and folds at once again from now on. */
  void foldHeld() {
    List<TaskEvent> now;
    synchronized (this) {
      foldLater = false;
      now = List.copyOf(held);
      held.clear();
    }
    now.forEach(this::fold);
  }

  @Override
  public Optional<TaskState> get(String taskId) {
    if (viewDown) {
      throw new ViewUnavailableException("in-memory view is rebalancing", null);
    }
    return Optional.ofNullable(tasks.get(taskId));
  }

  /** As the Kafka view's: the state alone, its history left out. */
  @Override
  public Optional<TaskState> getWithoutHistory(String taskId) {
    return get(taskId).map(s -> s.withHistory(List.of()));
  }

  @Override
  public List<TaskState> localTasksOf(String owner) {
    return tasksOf(owner);
  }

  @Override
  public List<TaskState> tasksOf(String owner) {
    if (viewDown) {
      throw new ViewUnavailableException("in-memory view is rebalancing", null);
    }
    return tasks.values().stream().filter(s -> Objects.equals(owner, s.owner())).toList();
  }

  @Override
  public AutoCloseable subscribe(String taskId, Consumer<TaskUpdate> listener) {
    subscribers.computeIfAbsent(taskId, k -> new CopyOnWriteArrayList<>()).add(listener);
    return () ->
        subscribers.computeIfPresent(
            taskId,
            (k, list) -> {
              list.remove(listener);
              return list.isEmpty() ? null : list;
            });
  }

  @Override
  public AutoCloseable subscribeAll(Consumer<TaskUpdate> listener) {
    everyTask.add(listener);
    return () -> everyTask.remove(listener);
  }

  /** Every event appended so far, folded or not, in order. */
  List<TaskEvent> events() {
    return List.copyOf(appended);
  }

  /** The events of one task. */
  List<TaskEvent> eventsOf(String taskId) {
    return appended.stream().filter(e -> taskId.equals(e.taskId())).toList();
  }

  /** Live subscriptions of one task (streams that are still open). */
  int subscriberCount(String taskId) {
    return subscribers.getOrDefault(taskId, List.of()).size();
  }

  void logDown(boolean down) {
    logDown = down;
  }

  void viewDown(boolean down) {
    viewDown = down;
  }
}

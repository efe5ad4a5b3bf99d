package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Lists the tasks of one owner (A2A {@code tasks/list}): scans the {@code tasks} store, keeps
 * the tasks whose {@code owner} equals the given one, newest first ({@code created_at}, then id),
 * and returns one page by offset.
 *
 * <p>Scope: the store this process can read locally, i.e. the partitions assigned to this
 * replica. With one gateway replica that is every task; with several, each replica lists only
 * its own partitions until a cross-replica query exists. The scan is linear in the number of
 * stored tasks.
 */
public final class TaskListing {
  /** One page and the number of matching tasks in all. */
  public record Page(List<TaskState> tasks, int total, int offset) {}

  private final Supplier<ReadOnlyKeyValueStore<String, TaskState>> store;

  public TaskListing(Supplier<ReadOnlyKeyValueStore<String, TaskState>> store) {
    this.store = store;
  }

  /**
   * The listing over a running {@link TaskView}'s local store. TaskView keeps its KafkaStreams
   * private; until it offers a store accessor the field is read here (same package and module).
   */
  public static TaskListing of(TaskView view) {
    KafkaStreams streams;
    TaskTopics topics;
    try {
      Field f = TaskView.class.getDeclaredField("streams");
      f.setAccessible(true);
      streams = (KafkaStreams) f.get(view);
      Field t = TaskView.class.getDeclaredField("topics");
      t.setAccessible(true);
      topics = (TaskTopics) t.get(view);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw new IllegalStateException("cannot reach the task view's store", e);
    }
    return new TaskListing(() -> streams.store(
        StoreQueryParameters.fromNameAndType(topics.storeName(), QueryableStoreTypes.keyValueStore())));
  }

  /**
   * The page of {@code owner}'s tasks (null owner = tasks created without one) that pass
   * {@code filter}, starting at {@code offset}, at most {@code limit} long.
   *
   * @throws ViewUnavailableException while the store is rebalancing or restoring
   */
  public Page list(String owner, Predicate<TaskState> filter, int offset, int limit) {
    if (offset < 0 || limit < 1) {
      throw new IllegalArgumentException("offset must be >= 0 and limit >= 1");
    }
    List<TaskState> matching = new ArrayList<>();
    try (KeyValueIterator<String, TaskState> it = store.get().all()) {
      while (it.hasNext()) {
        KeyValue<String, TaskState> kv = it.next();
        TaskState s = kv.value;
        if (s != null && Objects.equals(owner, s.owner()) && filter.test(s)) {
          matching.add(s);
        }
      }
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
    matching.sort(NEWEST_FIRST);
    int from = Math.min(offset, matching.size());
    int to = Math.min(matching.size(), from + limit);
    return new Page(List.copyOf(matching.subList(from, to)), matching.size(), from);
  }

  static final Comparator<TaskState> NEWEST_FIRST = Comparator
      .comparing(TaskListing::createdAt).reversed()
      .thenComparing(TaskState::id);

  private static java.time.Instant createdAt(TaskState s) {
    try {
      return s.createdAt() == null ? java.time.Instant.EPOCH : io.taskmesh.schemas.Times.parse(s.createdAt());
    } catch (RuntimeException e) {
      return java.time.Instant.EPOCH;
    }
  }
}

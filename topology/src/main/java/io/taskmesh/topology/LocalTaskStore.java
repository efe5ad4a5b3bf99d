package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Reads and scans this replica's own stores (the partitions it owns): the task states and their
 * update histories. A store that moves or restores is a {@link ViewUnavailableException}.
 */
final class LocalTaskStore {
  private final KafkaStreams streams;
  private final TaskTopics topics;

  LocalTaskStore(KafkaStreams streams, TaskTopics topics) {
    this.streams = streams;
    this.topics = topics;
  }

  /** One task with its history; {@code partition} null: whichever local partition holds it. */
  Optional<TaskState> get(String taskId, Integer partition) {
    return get(taskId, partition, true);
  }

  /** One task, with its history or without it (an empty list: no range read of the history). */
  Optional<TaskState> get(String taskId, Integer partition, boolean withHistory) {
    try {
      StoreQueryParameters<ReadOnlyKeyValueStore<String, TaskState>> params =
          StoreQueryParameters.fromNameAndType(
              topics.storeName(), QueryableStoreTypes.keyValueStore());
      StoreQueryParameters<ReadOnlyKeyValueStore<String, TaskUpdate>> historyParams =
          StoreQueryParameters.fromNameAndType(
              TaskHistory.storeName(topics), QueryableStoreTypes.keyValueStore());
      if (partition != null) {
        params = params.withPartition(partition);
        historyParams = historyParams.withPartition(partition);
      }
      TaskState s = streams.store(params).get(taskId);
      if (s == null || !withHistory) {
        return Optional.ofNullable(s);
      }
      return Optional.of(TaskHistory.attach(streams.store(historyParams), s));
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }

  /** How many tasks the stores hold (a full scan, without their histories). */
  int count() {
    int[] n = {0};
    scan(s -> n[0]++);
    return n[0];
  }

  /** The tasks that pass {@code filter}, each with its history, in store order. */
  List<TaskState> matching(Predicate<TaskState> filter) {
    List<TaskState> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, TaskUpdate> history = store(TaskHistory.storeName(topics));
    scan(
        s -> {
          if (filter.test(s)) {
            out.add(TaskHistory.attach(history, s));
          }
        });
    return out;
  }

  /** Hands every task state of the stores (without its history) to {@code each}. */
  private void scan(Consumer<TaskState> each) {
    ReadOnlyKeyValueStore<String, TaskState> states = store(topics.storeName());
    try (KeyValueIterator<String, TaskState> it = states.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.value != null) {
              each.accept(kv.value);
            }
          });
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }

  /** A store of every partition this replica owns. */
  private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
    try {
      return streams.store(
          StoreQueryParameters.fromNameAndType(
              name, QueryableStoreTypes.<String, V>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }
}

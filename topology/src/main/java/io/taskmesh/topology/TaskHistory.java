package io.taskmesh.topology;

import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The last {@link TaskFold#MAX_HISTORY} updates of every task (what SSE replays), kept in a store
 * of their own, keyed {@code <task id>|<seq, 19 digits>}, beside the task's state. Inside the state
 * they were rewritten whole at every event, so a task's events cost more the longer it ran and the
 * fold fell behind under load (figures: docs/bench/2026-11-27-figures-from-comments.md); here each
 * event writes one update. The fold itself never reads them.
 */
final class TaskHistory {
  private static final int SEQ_DIGITS = 19; // Long.MAX_VALUE

  private TaskHistory() {}

  static String storeName(TaskTopics topics) {
    return topics.storeName() + "-history";
  }

  static String key(String taskId, long seq) {
    String digits = Long.toString(seq);
    return taskId + "|" + "0".repeat(SEQ_DIGITS - digits.length()) + digits;
  }

  /**
   * The state with its history: the stored updates up to the state's own {@code seq} (a reader
   * racing the fold may see an update whose state is not written yet), oldest first. A state an
   * earlier version wrote with its history inline keeps that history, merged with the store's.
   */
  static TaskState attach(ReadOnlyKeyValueStore<String, TaskUpdate> store, TaskState s) {
    if (s == null) {
      return null;
    }
    List<TaskUpdate> stored = new ArrayList<>();
    int keyLength = s.id().length() + 1 + SEQ_DIGITS;
    try (KeyValueIterator<String, TaskUpdate> it =
        store.range(key(s.id(), 0), key(s.id(), s.seq()))) {
      while (it.hasNext()) {
        KeyValue<String, TaskUpdate> kv = it.next();
        if (kv.value != null
            && kv.key.length() == keyLength) { // not another id that starts with "<id>|"
          stored.add(kv.value);
        }
      }
    }
    if (s.history().isEmpty()) {
      return s.withHistory(stored);
    }
    TreeMap<Long, TaskUpdate> merged = new TreeMap<>();
    s.history().forEach(u -> merged.put(u.seq(), u));
    stored.forEach(u -> merged.put(u.seq(), u));
    List<TaskUpdate> all = new ArrayList<>(merged.values());
    return s.withHistory(all.subList(Math.max(0, all.size() - TaskFold.MAX_HISTORY), all.size()));
  }
}

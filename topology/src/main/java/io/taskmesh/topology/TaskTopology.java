package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Times;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * task events -> fold into the {@code tasks} store -> one task update per accepted change.
 *
 * <p>Deadline backstop: the same processor keeps a deadline index ({@code <store>-deadlines}, key
 * {@code <epoch-ms, 16 digits>|<task id>}) of the non-final tasks of its partition that have a
 * {@code deadline_at}. A wall-clock punctuator scans the index for due entries and appends a {@code
 * deadline_expired} event for each still non-final task to the task event log (in the same
 * exactly-once transaction as the index delete); the fold applies it like any other event. Going
 * through the log keeps replay deterministic: the log order alone decides whether a late final
 * report or the timeout won.
 *
 * <p>The punctuator is scheduled for the index's earliest deadline, not at a fixed rate: every
 * punctuation makes Streams commit its task, an exactly-once transaction even when nothing changed,
 * so a partition without deadlines is not scanned at all and an idle fold commits nothing. It scans
 * no more often than the scan interval, and at least every {@link #LONGEST_SCAN_WAIT} while any
 * deadline is indexed.
 */
public final class TaskTopology {
  public static final Duration DEFAULT_DEADLINE_SCAN = Duration.ofMillis(250);

  /**
   * The longest a scheduled scan waits for a far deadline: a wall clock set back meanwhile delays
   * the backstop by no more than this.
   */
  static final Duration LONGEST_SCAN_WAIT = Duration.ofMinutes(1);

  /** How many deserialized task states each fold processor (one per partition) keeps at hand. */
  static final int RECENT_STATES = 4096;

  private TaskTopology() {}

  /**
   * Whether the fold of an input partition has caught up with its log, asked by the deadline
   * backstop before it fires. A deadline decided while the fold still lags behind the log would
   * append {@code deadline_expired} for a task whose final event is already in the log, just not
   * folded yet: harmless for the state (the final comes first in the log) but a false entry in the
   * audit trail, hundreds of them when a replica rebuilds a long log.
   */
  @FunctionalInterface
  public interface DeadlineGate {
    boolean caughtUp(int partition);

    /** Tests with TopologyTestDriver: every record piped in is folded at once. */
    DeadlineGate ALWAYS = partition -> true;

    /** A replay: never append to the log being replayed. */
    DeadlineGate NEVER = partition -> false;
  }

  /**
   * Where the fold hands each update it makes in this process, right after forwarding it to the
   * update topic: the live view's own feed, which then need not wait for the record to be sent and
   * read back.
   */
  @FunctionalInterface
  public interface FoldedUpdates {
    void folded(String taskId, TaskUpdate update);

    /** Nobody in this process: a replay, tests. */
    FoldedUpdates NONE = (taskId, update) -> {};
  }

  public static StreamsBuilder build(StreamsBuilder builder, TaskTopics topics) {
    return build(builder, topics, DEFAULT_DEADLINE_SCAN, false);
  }

  public static StreamsBuilder build(
      StreamsBuilder builder, TaskTopics topics, Duration deadlineScan) {
    return build(builder, topics, deadlineScan, false);
  }

  /**
   * The fold with every deadline allowed to fire.
   *
   * @param cacheStates put Streams' record cache in front of the state and deadline stores: the
   *     writes of one task between two commits then reach RocksDB and the changelog once (a replay
   *     folds each task's events back to back). Off for the live view: the cache is flushed inside
   *     each commit, and those longer commits stall the fold and raise the event -> SSE p99
   *     (figures of both: docs/bench/2026-11-27-figures-from-comments.md).
   */
  public static StreamsBuilder build(
      StreamsBuilder builder, TaskTopics topics, Duration deadlineScan, boolean cacheStates) {
    return build(builder, topics, deadlineScan, cacheStates, DeadlineGate.ALWAYS);
  }

  /**
   * The fold: task events in, task states and updates out, deadlines fired by a punctuator.
   *
   * @param gate asked before due deadlines fire on a partition; once it says yes, the partition's
   *     deadlines fire until the partition moves (see {@link DeadlineGate})
   */
  public static StreamsBuilder build(
      StreamsBuilder builder,
      TaskTopics topics,
      Duration deadlineScan,
      boolean cacheStates,
      DeadlineGate gate) {
    return build(builder, topics, deadlineScan, cacheStates, gate, FoldedUpdates.NONE);
  }

  /**
   * As {@link #build(StreamsBuilder, TaskTopics, Duration, boolean, DeadlineGate)}, handing each
   * update to {@code folded} as well.
   */
  public static StreamsBuilder build(
      StreamsBuilder builder,
      TaskTopics topics,
      Duration deadlineScan,
      boolean cacheStates,
      DeadlineGate gate,
      FoldedUpdates folded) {
    String deadlines = deadlineStoreName(topics);
    StoreBuilder<KeyValueStore<String, TaskState>> states =
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(topics.storeName()),
            Serdes.String(),
            TaskTopics.STATE_SERDE);
    StoreBuilder<KeyValueStore<String, String>> deadlineIndex =
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(deadlines), Serdes.String(), Serdes.String());
    builder.addStateStore(cacheStates ? states.withCachingEnabled() : states.withCachingDisabled());
    builder.addStateStore(
        cacheStates ? deadlineIndex.withCachingEnabled() : deadlineIndex.withCachingDisabled());
    String history = TaskHistory.storeName(topics);
    // never cached: each key is written once, so a cache only adds work (measured: slower)
    builder.addStateStore(
        Stores.keyValueStoreBuilder(
            Stores.persistentKeyValueStore(history), Serdes.String(), TaskTopics.HISTORY_SERDE));
    KStream<String, Output> out =
        builder.stream(
                topics.events().name(),
                Consumed.with(topics.events().keySerde(), topics.events().valueSerde()))
            .process(
                () ->
                    new FoldProcessor(
                        topics.storeName(), deadlines, history, deadlineScan, gate, folded),
                topics.storeName(),
                deadlines,
                history);
    out.filter((k, v) -> v.update() != null)
        .mapValues(Output::update)
        .to(
            topics.updates().name(),
            Produced.with(topics.updates().keySerde(), topics.updates().valueSerde()));
    out.filter((k, v) -> v.event() != null)
        .mapValues(Output::event)
        .to(
            topics.events().name(),
            Produced.with(topics.events().keySerde(), topics.events().valueSerde()));
    return builder;
  }

  public static String deadlineStoreName(TaskTopics topics) {
    return topics.storeName() + "-deadlines";
  }

  /** What the fold emits: an update for the update topic, or an event for the task log. */
  record Output(TaskUpdate update, TaskEvent event) {}

  /**
   * {@code <epoch ms, 16 digits>|<task id>}: keys sort by time. Built by hand, not with {@code
   * String.format}, whose parsing of the pattern was most of the fold's deadline work in a profile;
   * the keys are the same (stores written before read and delete them).
   */
  static String deadlineKey(long epochMs, String taskId) {
    if (epochMs < 0) {
      return String.format("%016d|%s", epochMs, taskId); // never a real deadline: kept as it was
    }
    String digits = Long.toString(epochMs);
    StringBuilder key = new StringBuilder(17 + taskId.length());
    for (int i = digits.length(); i < 16; i++) {
      key.append('0');
    }
    return key.append(digits).append('|').append(taskId).toString();
  }

  /** The epoch ms a {@link #deadlineKey} names. */
  static long deadlineOf(String key) {
    return Long.parseLong(key.substring(0, key.indexOf('|')));
  }

  /** Applies {@link TaskFold} to the stored state of the event's task; fires due deadlines. */
  static final class FoldProcessor implements Processor<String, TaskEvent, String, Output> {
    private static final Logger LOG = LoggerFactory.getLogger(FoldProcessor.class);
    private final String storeName;
    private final String deadlineStoreName;
    private final String historyStoreName;
    private final Duration scanInterval;
    private final DeadlineGate gate;
    private final FoldedUpdates folded;

    /** Set once the gate said this processor's partition is folded to its end. */
    private boolean caughtUp;

    private ProcessorContext<String, Output> context;
    private KeyValueStore<String, TaskState> store;
    private KeyValueStore<String, String> deadlines;
    private KeyValueStore<String, TaskUpdate> history;

    /** The scan scheduled next, or null while the deadline index is empty. */
    private Cancellable scan;

    /** When {@link #scan} fires (epoch ms, wall clock). */
    private long scanAt;

    /**
     * The deserialized states of the tasks folded last. The store keeps bytes, and reading a task's
     * whole state back from them for each of its events cost about as much as writing it (a replay
     * profile: a third of the stream thread). Every write goes through {@link #put}, so the entries
     * equal the store's; {@link #init} (also run when Streams revives a task after a dirty close)
     * starts empty.
     */
    private final Map<String, TaskState> recent =
        new LinkedHashMap<>(1024, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<String, TaskState> eldest) {
            return size() > RECENT_STATES;
          }
        };

    FoldProcessor(
        String storeName,
        String deadlineStoreName,
        String historyStoreName,
        Duration scanInterval,
        DeadlineGate gate,
        FoldedUpdates folded) {
      this.gate = gate;
      this.folded = folded;
      this.storeName = storeName;
      this.deadlineStoreName = deadlineStoreName;
      this.historyStoreName = historyStoreName;
      this.scanInterval = scanInterval;
    }

    @Override
    public void init(ProcessorContext<String, Output> context) {
      this.context = context;
      this.recent.clear();
      this.caughtUp = false; // a partition (re)assigned here is folded from its checkpoint again
      this.store = context.getStateStore(storeName);
      this.deadlines = context.getStateStore(deadlineStoreName);
      this.history = context.getStateStore(historyStoreName);
      cancelScan(); // a revived task's processor is initialized again
      earliestDeadline().ifPresent(at -> scheduleScan(at, context.currentSystemTimeMs()));
    }

    /** The index's first deadline (its keys sort by time). */
    private OptionalLong earliestDeadline() {
      try (KeyValueIterator<String, String> it = deadlines.all()) {
        return it.hasNext() ? OptionalLong.of(deadlineOf(it.next().key)) : OptionalLong.empty();
      }
    }

    /**
     * Makes sure a scan runs by {@code at}: keeps an earlier one, else replaces it. A due (or past)
     * deadline is scanned after the scan interval, a later one when it is due.
     */
    private void scheduleScan(long at, long now) {
      if (scan != null && scanAt <= at) {
        return;
      }
      cancelScan();
      long wait =
          Math.min(Math.max(at - now, scanInterval.toMillis()), LONGEST_SCAN_WAIT.toMillis());
      scanAt = now + wait;
      scan =
          context.schedule(Duration.ofMillis(wait), PunctuationType.WALL_CLOCK_TIME, this::scanDue);
    }

    private void cancelScan() {
      if (scan != null) {
        scan.cancel();
        scan = null;
      }
    }

    /** One scan: fires what is due, then waits for the next deadline, or for none. */
    private void scanDue(long now) {
      cancelScan(); // one-shot: the next one is scheduled for the deadline that follows
      fireDue(now);
      earliestDeadline().ifPresent(at -> scheduleScan(at, now));
    }

    @Override
    public void process(Record<String, TaskEvent> record) {
      TaskEvent event = record.value();
      if (event == null || record.key() == null) {
        return;
      }
      try {
        TaskFold.apply(state(record.key()), event)
            .ifPresent(
                result -> {
                  put(record.key(), result.state());
                  index(result.state());
                  TaskViewMetrics.folded(result.state(), result.update());
                  context.forward(record.withValue(new Output(result.update(), null)));
                  folded.folded(record.key(), result.update());
                });
      } catch (IllegalArgumentException bad) {
        // a malformed event must not stop the fold of every other task
        LOG.warn(
            "skipping task event {} of task {}: {}",
            event.eventId(),
            record.key(),
            bad.getMessage());
      }
    }

    private TaskState state(String taskId) {
      TaskState s = recent.get(taskId);
      return s != null ? s : store.get(taskId);
    }

    /**
     * The state goes to the store without its history; its updates (the new one; all of them once
     * for a state an earlier version stored with its history inline) go to the history store first,
     * so a reader that sees the state's seq finds its update there.
     */
    private void put(String taskId, TaskState state) {
      for (TaskUpdate u : state.history()) {
        history.put(TaskHistory.key(taskId, u.seq()), u);
        long dropped = u.seq() - TaskFold.MAX_HISTORY;
        if (dropped > 0) {
          history.delete(TaskHistory.key(taskId, dropped));
        }
      }
      TaskState bare = state.history().isEmpty() ? state : state.withHistory(List.of());
      store.put(taskId, bare);
      recent.put(taskId, bare);
    }

    @Override
    public void close() {
      cancelScan();
      recent.clear();
    }

    /**
     * A task with a deadline is in the index while it is not final: it enters with its first state
     * and leaves with its final one; the events between change nothing here.
     */
    private void index(TaskState s) {
      if (s.deadlineAt() == null || !(s.isFinal() || s.seq() == 1)) {
        return;
      }
      long at;
      try {
        at = Times.parse(s.deadlineAt()).toEpochMilli();
      } catch (DateTimeParseException bad) {
        LOG.warn("task {} has an unreadable deadline_at '{}': no backstop", s.id(), s.deadlineAt());
        return;
      }
      String key = deadlineKey(at, s.id());
      if (s.isFinal()) {
        deadlines.delete(key);
      } else if (s.seq() == 1) {
        deadlines.put(key, s.id());
        scheduleScan(at, context.currentSystemTimeMs());
      }
    }

    void fireDue(long now) {
      if (!caughtUp) {
        caughtUp = gate.caughtUp(context.taskId().partition());
        if (!caughtUp) {
          return;
        }
      }
      List<KeyValue<String, String>> due = new ArrayList<>();
      try (KeyValueIterator<String, String> it =
          deadlines.range(null, deadlineKey(now, "\uffff"))) {
        while (it.hasNext()) {
          due.add(it.next());
        }
      }
      for (KeyValue<String, String> entry : due) {
        deadlines.delete(entry.key);
        TaskState s = state(entry.value);
        if (s != null && !s.isFinal()) {
          context.forward(
              new Record<>(
                  s.id(),
                  new Output(null, TaskEvent.deadlineExpired(s.id(), s.deadlineAt())),
                  now));
        }
      }
    }
  }
}

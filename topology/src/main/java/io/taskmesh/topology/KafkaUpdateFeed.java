package io.taskmesh.topology;

import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.TopicFanout;
import java.util.function.Consumer;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The update topic as an {@link UpdateFeed}: every partition read (no consumer group, from the end)
 * and each update handed to the in-process subscribers of its task, so an SSE client on any replica
 * gets updates folded on any other.
 *
 * <p>The fan-out reads uncommitted records: a live update reaches SSE as soon as the fold produced
 * it, not at the next exactly-once commit (up to commit.interval.ms + the commit later). Safe
 * because the fold is deterministic: an aborted batch is folded again from the same log into
 * updates with the same seq and content, and SSE sessions skip any seq they already sent.
 *
 * <p>The updates this replica's own fold makes reach its subscribers at once ({@link #folded}),
 * without waiting for the fold's producer to send them (its linger) and the fan-out to read them
 * back; the topic's copy that follows is skipped. Each subscription passes on only updates with a
 * higher seq than the last it passed on, so a task's subscriber sees each update once and in order,
 * whichever way it came.
 */
final class KafkaUpdateFeed implements UpdateFeed, AutoCloseable {
  private final TopicFanout<TaskUpdate> fanout;

  KafkaUpdateFeed(String bootstrapServers, TaskTopics.Topic<TaskUpdate> updates) {
    Deserializer<TaskUpdate> values = updates.valueSerde().deserializer();
    String topic = updates.name();
    this.fanout =
        new TopicFanout<>(
            bootstrapServers, topic, "task-update-feed", v -> values.deserialize(topic, v));
  }

  /** Positions at the end of every partition before returning, so no later update is missed. */
  void start() {
    fanout.start();
  }

  /** An update this replica's fold made, for the task's subscribers now (the fold's thread). */
  void folded(String taskId, TaskUpdate update) {
    fanout.publishLocal(taskId, update);
  }

  @Override
  public AutoCloseable subscribe(String taskId, Consumer<TaskUpdate> listener) {
    return fanout.subscribe(taskId, new Newer(listener));
  }

  @Override
  public AutoCloseable subscribeAll(Consumer<TaskUpdate> listener) {
    return fanout.subscribeAll(listener);
  }

  @Override
  public void close() {
    fanout.close();
  }

  /**
   * One task's subscription: passes on an update only when its seq is above the last passed on (the
   * fold's own copy and the topic's arrive on two threads).
   */
  private static final class Newer implements Consumer<TaskUpdate> {
    private final Consumer<TaskUpdate> listener;
    private long last = Long.MIN_VALUE;

    Newer(Consumer<TaskUpdate> listener) {
      this.listener = listener;
    }

    @Override
    public synchronized void accept(TaskUpdate u) {
      if (u.seq() <= last) {
        return;
      }
      last = u.seq();
      listener.accept(u);
    }
  }
}

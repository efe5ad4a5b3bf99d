package io.taskmesh.topology;

import io.taskmesh.schemas.JsonSerde;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.Env;
import java.util.Map;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;

/**
 * The topics and store of the task view, each a value carrying its name and serdes. The names come
 * from the environment ({@link #fromEnv}), so the gateway and {@code ./taskmesh replay} read the
 * same ones.
 */
public record TaskTopics(Topic<TaskEvent> events, Topic<TaskUpdate> updates, String storeName) {

  public record Topic<V>(String name, Serde<String> keySerde, Serde<V> valueSerde) {}

  public static final Serde<TaskState> STATE_SERDE = new SmileSerde<>(TaskState.class);
  public static final Serde<TaskUpdate> HISTORY_SERDE = new SmileSerde<>(TaskUpdate.class);

  public static TaskTopics defaults() {
    return named(Topics.TASK_EVENTS, Topics.TASK_UPDATES, "tasks");
  }

  /**
   * {@code SVC_TASK_EVENTS_TOPIC}, {@code SVC_TASK_UPDATES_TOPIC}, {@code SVC_TASK_STORE}: default
   * {@code svc.task-events}, {@code svc.task-updates}, {@code tasks}.
   */
  public static TaskTopics fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    return named(
        env.string("SVC_TASK_EVENTS_TOPIC", Topics.TASK_EVENTS),
        env.string("SVC_TASK_UPDATES_TOPIC", Topics.TASK_UPDATES),
        env.string("SVC_TASK_STORE", "tasks"));
  }

  public static TaskTopics named(String events, String updates, String store) {
    return new TaskTopics(
        new Topic<>(events, Serdes.String(), new JsonSerde<>(TaskEvent.class)),
        new Topic<>(updates, Serdes.String(), new JsonSerde<>(TaskUpdate.class)),
        store);
  }
}

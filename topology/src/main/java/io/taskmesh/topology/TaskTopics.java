package io.taskmesh.topology;

import io.taskmesh.schemas.JsonSerde;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ConfigException;
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
   * the namespace's topics ({@link Topics#taskEvents}, {@link Topics#taskUpdates}; {@code
   * svc.task-events} and {@code svc.task-updates} in the namespace {@code default}) and {@code
   * tasks}.
   */
  public static TaskTopics fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    String namespace = namespace(env);
    return named(
        env.string("SVC_TASK_EVENTS_TOPIC", Topics.taskEvents(namespace)),
        env.string("SVC_TASK_UPDATES_TOPIC", Topics.taskUpdates(namespace)),
        env.string("SVC_TASK_STORE", "tasks"));
  }

  /**
   * {@code SVC_NAMESPACE} (default {@code default}), checked: it becomes part of topic and group
   * names, so a character Kafka refuses would only fail later, at the first topic creation.
   */
  public static String namespace(Env env) {
    String ns = env.string("SVC_NAMESPACE", Topics.DEFAULT_NAMESPACE);
    if (!Topics.validNamespace(ns)) {
      throw new ConfigException(
          "SVC_NAMESPACE", "'" + ns + "' must be 1-100 letters, digits, '.', '_' or '-'");
    }
    return ns;
  }

  /**
   * {@code SVC_STREAMS_APPLICATION_ID}, default the namespace's ({@link
   * Topics#gatewayApplicationId}): read the same way by the gateway and {@code ./taskmesh replay}.
   */
  public static String applicationId(Map<String, String> vars) {
    Env env = Env.of(vars);
    return env.string("SVC_STREAMS_APPLICATION_ID", Topics.gatewayApplicationId(namespace(env)));
  }

  public static TaskTopics named(String events, String updates, String store) {
    return new TaskTopics(
        new Topic<>(events, Serdes.String(), new JsonSerde<>(TaskEvent.class)),
        new Topic<>(updates, Serdes.String(), new JsonSerde<>(TaskUpdate.class)),
        store);
  }
}

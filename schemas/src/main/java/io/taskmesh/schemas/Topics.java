package io.taskmesh.schemas;

/**
 * Topic names: the task log, the update feed, and one queue per actor, each derived from the
 * deployment's namespace ({@code SVC_NAMESPACE}) so that two deployments on one Kafka cluster never
 * share a topic, consumer group, transactional id or Streams application.
 *
 * <p>The namespace {@code default} keeps the names of the releases before namespaces isolated
 * anything ({@code svc.task-events}, application id {@code svc-gateway}), so an existing deployment
 * keeps its log and its view. Any other namespace {@code ns} prefixes the gateway's names with
 * {@code svc.<ns>.}: a dot never follows {@code svc} in an actor queue ({@code svc-<ns>-<actor>}),
 * so these names can never meet an actor's topic or group whatever the namespace and actor names
 * are.
 */
public final class Topics {
  public static final String DEFAULT_NAMESPACE = "default";
  public static final String TASK_EVENTS = "svc.task-events";
  public static final String TASK_UPDATES = "svc.task-updates";
  public static final String GATEWAY_APPLICATION_ID = "svc-gateway";
  public static final String MESH_API_EVENTS = "svc.mesh-api-events";
  public static final String SINK = "x-sink";
  public static final String SUMP = "x-sump";
  public static final String PAUSE = "x-pause";

  private Topics() {}

  /** Kafka's topic characters; a namespace is part of topic and group names. */
  private static final java.util.regex.Pattern NAMESPACE =
      java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,100}");

  /** Whether {@code namespace} can be part of a topic name (letters, digits, . _ -; 1-40). */
  public static boolean validNamespace(String namespace) {
    return namespace != null && NAMESPACE.matcher(namespace).matches();
  }

  /** The task event log of a namespace: {@code svc.task-events} or {@code svc.<ns>.task-events}. */
  public static String taskEvents(String namespace) {
    return gatewayOwned(namespace, "task-events", TASK_EVENTS);
  }

  /** The task update feed: {@code svc.task-updates} or {@code svc.<ns>.task-updates}. */
  public static String taskUpdates(String namespace) {
    return gatewayOwned(namespace, "task-updates", TASK_UPDATES);
  }

  /**
   * The gateways' Kafka Streams application id, also their consumer group and the prefix of their
   * changelogs and transactional ids: {@code svc-gateway} or {@code svc.<ns>.gateway}.
   */
  public static String gatewayApplicationId(String namespace) {
    return gatewayOwned(namespace, "gateway", GATEWAY_APPLICATION_ID);
  }

  /** mesh-api's status fan-out: {@code svc.mesh-api-events} or {@code svc.<ns>.mesh-api-events}. */
  public static String meshApiEvents(String namespace) {
    return gatewayOwned(namespace, "mesh-api-events", MESH_API_EVENTS);
  }

  private static String gatewayOwned(String namespace, String name, String defaultName) {
    return namespace == null || DEFAULT_NAMESPACE.equals(namespace)
        ? defaultName
        : "svc." + namespace + "." + name;
  }

  /** {@code svc-{namespace}-{actor}}: an actor's queue. */
  public static String actorQueue(String namespace, String actor) {
    return "svc-" + namespace + "-" + actor;
  }

  /**
   * {@code svc-{namespace}-x-pause.resume}: where a resume of a parked envelope is produced (value
   * {@code {"id": <envelope id>, "input": <json>}}); x-pause consumes it.
   */
  public static String pauseResume(String namespace) {
    return actorQueue(namespace, PAUSE) + ".resume";
  }

  /** The actor's dead-letter topic. */
  public static String deadLetter(String namespace, String actor) {
    return actorQueue(namespace, actor) + ".dlq";
  }

  public static boolean isCrewActor(String actor) {
    return SINK.equals(actor) || SUMP.equals(actor);
  }
}

package io.taskmesh.sidecar;

import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.TopicCreator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Everything a sidecar or crew actor reads from its environment, validated eagerly by {@link
 * #fromEnv(Map)}: a bad value fails start-up with a message naming the variable.
 */
public record SidecarConfig(
    String bootstrapServers,
    String namespace,
    String actorName,
    Path socketDir,
    String socketName,
    String gatewayUrl,
    Duration actorTimeout,
    int maxAttempts,
    Duration backoff,
    List<String> retryOn,
    int concurrency,
    int maxDeliveries,
    int maxPollRecords,
    int partitions,
    short replicationFactor,
    String instanceId,
    boolean staticMember,
    Duration transactionTimeout,
    Duration startupRetryTimeout) {

  public static final String DEFAULT_SOCKET_DIR = "/var/run/svc";
  public static final String DEFAULT_SOCKET_NAME = "svc-runtime.sock";

  /**
   * Partitions of the actor topics a sidecar creates when {@code SVC_ACTOR_TOPIC_PARTITIONS} is not
   * set: the most replicas of one actor that get work is the partition count, and 6 splits evenly
   * between 1, 2, 3 or 6 replicas (k8s runs 2 per actor). More partitions cost a little broker
   * memory and a few more partitions per transaction; order between envelopes of one actor never
   * mattered (each envelope is its own task or child, keyed by its id).
   */
  public static final int DEFAULT_ACTOR_TOPIC_PARTITIONS = 6;

  public SidecarConfig {
    require(bootstrapServers, "KAFKA_BOOTSTRAP_SERVERS");
    require(actorName, "SVC_ACTOR_NAME");
    require(namespace, "SVC_NAMESPACE");
    retryOn = List.copyOf(retryOn);
    gatewayUrl = gatewayUrl == null || gatewayUrl.isBlank() ? null : stripSlash(gatewayUrl.trim());
    positive(maxAttempts, "SVC_RESILIENCY_MAX_ATTEMPTS");
    positive(concurrency, "SVC_CONCURRENCY");
    positive(maxDeliveries, "SVC_MAX_DELIVERIES");
    positive(maxPollRecords, "SVC_MAX_POLL_RECORDS");
    positive(partitions, "SVC_ACTOR_TOPIC_PARTITIONS");
    positive(replicationFactor, "SVC_TOPIC_REPLICATION_FACTOR");
    if (actorTimeout.isZero() || actorTimeout.isNegative()) {
      throw new ConfigException("SVC_RESILIENCY_ACTOR_TIMEOUT", "must be positive");
    }
  }

  /** Reads the variables documented in the module README. */
  public static SidecarConfig fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    return new SidecarConfig(
        env.optional("KAFKA_BOOTSTRAP_SERVERS"),
        env.string("SVC_NAMESPACE", "default"),
        env.optional("SVC_ACTOR_NAME"),
        Path.of(env.string("SVC_SOCKET_DIR", DEFAULT_SOCKET_DIR)),
        env.string("SVC_SOCKET_NAME", DEFAULT_SOCKET_NAME),
        env.optional("SVC_GATEWAY_URL"),
        env.duration("SVC_RESILIENCY_ACTOR_TIMEOUT", "5m"),
        env.integer("SVC_RESILIENCY_MAX_ATTEMPTS", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
        env.duration("SVC_RESILIENCY_BACKOFF", "200ms"),
        env.list("SVC_RESILIENCY_RETRY_ON", ""),
        env.integer("SVC_CONCURRENCY", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
        env.integer("SVC_MAX_DELIVERIES", 3, Integer.MIN_VALUE, Integer.MAX_VALUE),
        env.integer("SVC_MAX_POLL_RECORDS", 500, Integer.MIN_VALUE, Integer.MAX_VALUE),
        actorTopicPartitions(env),
        (short) env.integer("SVC_TOPIC_REPLICATION_FACTOR", 1, Short.MIN_VALUE, Short.MAX_VALUE),
        env.string("SVC_INSTANCE_ID", UUID.randomUUID().toString()),
        env.isSet("SVC_INSTANCE_ID"),
        env.duration("SVC_TRANSACTION_TIMEOUT", "15s"),
        StartupRetry.limit(env));
  }

  /** A config for tests and launchers: defaults everywhere except the essentials. */
  public static SidecarConfig of(
      String bootstrapServers,
      String namespace,
      String actorName,
      Path socketDir,
      String gatewayUrl) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        DEFAULT_SOCKET_NAME,
        gatewayUrl,
        Duration.ofMinutes(5),
        1,
        Duration.ofMillis(200),
        List.of(),
        1,
        3,
        500,
        1,
        (short) 1,
        UUID.randomUUID().toString(),
        false,
        Duration.ofSeconds(15),
        Duration.ofSeconds(60));
  }

  /** How this actor creates the topics it writes to when they are missing. */
  public TopicCreator.Spec topicSpec() {
    return TopicCreator.Spec.of(partitions, replicationFactor);
  }

  public Path socketPath() {
    return socketDir.resolve(socketName);
  }

  /** {@code svc-{ns}-{actor}}: the input topic, also the consumer group id. */
  public String inputTopic() {
    return Topics.actorQueue(namespace, actorName);
  }

  public String topicOf(String actor) {
    return Topics.actorQueue(namespace, actor);
  }

  public String deadLetterTopic() {
    return Topics.deadLetter(namespace, actorName);
  }

  /**
   * Stable per instance so a restarted instance fences and aborts its predecessor's open
   * transaction.
   */
  public String transactionalId() {
    return inputTopic() + "-" + instanceId;
  }

  public SidecarConfig withActor(String actor) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actor,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        maxAttempts,
        backoff,
        retryOn,
        concurrency,
        maxDeliveries,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  public SidecarConfig withResiliency(
      int attempts, Duration backoffBase, List<String> retryOnTypes) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        attempts,
        backoffBase,
        retryOnTypes,
        concurrency,
        maxDeliveries,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  public SidecarConfig withActorTimeout(Duration timeout) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        timeout,
        maxAttempts,
        backoff,
        retryOn,
        concurrency,
        maxDeliveries,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  /** The same config with {@code SVC_TRANSACTION_TIMEOUT} set to {@code timeout}. */
  public SidecarConfig withTransactionTimeout(Duration timeout) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        maxAttempts,
        backoff,
        retryOn,
        concurrency,
        maxDeliveries,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        timeout,
        startupRetryTimeout);
  }

  public SidecarConfig withConcurrency(int n) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        maxAttempts,
        backoff,
        retryOn,
        n,
        maxDeliveries,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  public SidecarConfig withMaxPollRecords(int n) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        maxAttempts,
        backoff,
        retryOn,
        concurrency,
        maxDeliveries,
        n,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  public SidecarConfig withMaxDeliveries(int n) {
    return new SidecarConfig(
        bootstrapServers,
        namespace,
        actorName,
        socketDir,
        socketName,
        gatewayUrl,
        actorTimeout,
        maxAttempts,
        backoff,
        retryOn,
        concurrency,
        n,
        maxPollRecords,
        partitions,
        replicationFactor,
        instanceId,
        staticMember,
        transactionTimeout,
        startupRetryTimeout);
  }

  /**
   * {@code SVC_ACTOR_TOPIC_PARTITIONS}; {@code SVC_TOPIC_PARTITIONS}, its name before, still counts
   * when the new one is not set; else {@link #DEFAULT_ACTOR_TOPIC_PARTITIONS}.
   */
  private static int actorTopicPartitions(Env env) {
    String name =
        env.isSet("SVC_ACTOR_TOPIC_PARTITIONS") || !env.isSet("SVC_TOPIC_PARTITIONS")
            ? "SVC_ACTOR_TOPIC_PARTITIONS"
            : "SVC_TOPIC_PARTITIONS";
    return env.integer(name, DEFAULT_ACTOR_TOPIC_PARTITIONS, Integer.MIN_VALUE, Integer.MAX_VALUE);
  }

  private static void require(String value, String variable) {
    if (value == null || value.isBlank()) {
      throw new ConfigException(variable, "required but not set");
    }
  }

  private static void positive(int value, String variable) {
    if (value < 1) {
      throw new ConfigException(variable, "must be at least 1, got " + value);
    }
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}

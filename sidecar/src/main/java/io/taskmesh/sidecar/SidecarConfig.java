package io.taskmesh.sidecar;

import io.taskmesh.schemas.Durations;
import io.taskmesh.schemas.Topics;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Everything a sidecar or crew actor reads from its environment, validated eagerly by
 * {@link #fromEnv(Map)}: a bad value fails start-up with a message naming the variable.
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
    Duration transactionTimeout) {

  public static final String DEFAULT_SOCKET_DIR = "/var/run/svc";
  public static final String DEFAULT_SOCKET_NAME = "svc-runtime.sock";

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
    positive(partitions, "SVC_TOPIC_PARTITIONS");
    positive(replicationFactor, "SVC_TOPIC_REPLICATION_FACTOR");
    if (actorTimeout.isZero() || actorTimeout.isNegative()) {
      throw new IllegalArgumentException("SVC_RESILIENCY_ACTOR_TIMEOUT must be positive");
    }
  }

  /** Reads the variables documented in the module README. */
  public static SidecarConfig fromEnv(Map<String, String> env) {
    return new SidecarConfig(
        env.get("KAFKA_BOOTSTRAP_SERVERS"),
        env.getOrDefault("SVC_NAMESPACE", "default"),
        env.get("SVC_ACTOR_NAME"),
        Path.of(env.getOrDefault("SVC_SOCKET_DIR", DEFAULT_SOCKET_DIR)),
        env.getOrDefault("SVC_SOCKET_NAME", DEFAULT_SOCKET_NAME),
        env.get("SVC_GATEWAY_URL"),
        Durations.parse("SVC_RESILIENCY_ACTOR_TIMEOUT", env.getOrDefault("SVC_RESILIENCY_ACTOR_TIMEOUT", "5m")),
        integer(env, "SVC_RESILIENCY_MAX_ATTEMPTS", 1),
        Durations.parse("SVC_RESILIENCY_BACKOFF", env.getOrDefault("SVC_RESILIENCY_BACKOFF", "200ms")),
        list(env.get("SVC_RESILIENCY_RETRY_ON")),
        integer(env, "SVC_CONCURRENCY", 1),
        integer(env, "SVC_MAX_DELIVERIES", 3),
        integer(env, "SVC_MAX_POLL_RECORDS", 500),
        integer(env, "SVC_TOPIC_PARTITIONS", 1),
        (short) integer(env, "SVC_TOPIC_REPLICATION_FACTOR", 1),
        env.getOrDefault("SVC_INSTANCE_ID", UUID.randomUUID().toString()),
        env.containsKey("SVC_INSTANCE_ID"),
        Durations.parse("SVC_TRANSACTION_TIMEOUT", env.getOrDefault("SVC_TRANSACTION_TIMEOUT", "15s")));
  }

  /** A config for tests and launchers: defaults everywhere except the essentials. */
  public static SidecarConfig of(String bootstrapServers, String namespace, String actorName, Path socketDir,
      String gatewayUrl) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, DEFAULT_SOCKET_NAME, gatewayUrl,
        Duration.ofMinutes(5), 1, Duration.ofMillis(200), List.of(), 1, 3, 500, 1, (short) 1,
        UUID.randomUUID().toString(), false, Duration.ofSeconds(15));
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

  /** Stable per instance so a restarted instance fences and aborts its predecessor's open transaction. */
  public String transactionalId() {
    return inputTopic() + "-" + instanceId;
  }

  public SidecarConfig withActor(String actor) {
    return new SidecarConfig(bootstrapServers, namespace, actor, socketDir, socketName, gatewayUrl, actorTimeout,
        maxAttempts, backoff, retryOn, concurrency, maxDeliveries, maxPollRecords, partitions, replicationFactor,
        instanceId, staticMember, transactionTimeout);
  }

  public SidecarConfig withResiliency(int attempts, Duration backoffBase, List<String> retryOnTypes) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, socketName, gatewayUrl, actorTimeout,
        attempts, backoffBase, retryOnTypes, concurrency, maxDeliveries, maxPollRecords, partitions,
        replicationFactor, instanceId, staticMember,
        transactionTimeout);
  }

  public SidecarConfig withActorTimeout(Duration timeout) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, socketName, gatewayUrl, timeout,
        maxAttempts, backoff, retryOn, concurrency, maxDeliveries, maxPollRecords, partitions, replicationFactor,
        instanceId, staticMember, transactionTimeout);
  }

  public SidecarConfig withConcurrency(int n) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, socketName, gatewayUrl, actorTimeout,
        maxAttempts, backoff, retryOn, n, maxDeliveries, maxPollRecords, partitions, replicationFactor, instanceId,
        staticMember, transactionTimeout);
  }

  public SidecarConfig withMaxPollRecords(int n) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, socketName, gatewayUrl, actorTimeout,
        maxAttempts, backoff, retryOn, concurrency, maxDeliveries, n, partitions, replicationFactor, instanceId,
        staticMember, transactionTimeout);
  }

  public SidecarConfig withMaxDeliveries(int n) {
    return new SidecarConfig(bootstrapServers, namespace, actorName, socketDir, socketName, gatewayUrl, actorTimeout,
        maxAttempts, backoff, retryOn, concurrency, n, maxPollRecords, partitions, replicationFactor, instanceId,
        staticMember, transactionTimeout);
  }

  private static void require(String value, String variable) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(variable + " is required");
    }
  }

  private static void positive(int value, String variable) {
    if (value < 1) {
      throw new IllegalArgumentException(variable + " must be at least 1, got " + value);
    }
  }

  private static int integer(Map<String, String> env, String variable, int dflt) {
    String v = env.get(variable);
    if (v == null || v.isBlank()) {
      return dflt;
    }
    try {
      return Integer.parseInt(v.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(variable + " must be an integer, got '" + v + "'");
    }
  }

  private static List<String> list(String csv) {
    if (csv == null || csv.isBlank()) {
      return List.of();
    }
    return Arrays.stream(csv.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  private static String stripSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}

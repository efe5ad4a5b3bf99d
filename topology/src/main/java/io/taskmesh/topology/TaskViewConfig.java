package io.taskmesh.topology;

import io.taskmesh.servicekit.ConfigException;
import java.nio.file.Path;

/**
 * How the task view runs: the broker, the Streams application id (shared by every gateway replica),
 * where RocksDB keeps its files, how the task topics are created when missing, and this replica's
 * address for interactive queries ({@code host:port}, Streams' {@code application.server}; null for
 * a single replica that never forwards), and the shared secret a forwarded query carries ({@code
 * X-Svc-Internal-Token}; null: none sent).
 */
public record TaskViewConfig(
    String bootstrapServers,
    String applicationId,
    Path stateDir,
    int partitions,
    short replicationFactor,
    String applicationServer,
    String internalToken,
    long eventsRetentionMs) {

  /**
   * The event log's retention when the services create it: forever. The log is the only input of a
   * replay and the only record of a task, so a cluster default (often 7 days) would silently cut
   * both; {@code SVC_TASK_EVENTS_RETENTION_MS} overrides it for a deployment that accepts that.
   */
  public static final long RETAIN_FOREVER = -1;

  /** The header a forwarded query carries the replicas' shared secret in. */
  public static final String INTERNAL_TOKEN_HEADER = "X-Svc-Internal-Token";

  public TaskViewConfig {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigException("KAFKA_BOOTSTRAP_SERVERS", "required but not set");
    }
    if (partitions < 1) {
      throw new ConfigException("SVC_TASK_TOPIC_PARTITIONS", "task topic partitions must be >= 1");
    }
    if (eventsRetentionMs < -1 || eventsRetentionMs == 0) {
      throw new ConfigException(
          "SVC_TASK_EVENTS_RETENTION_MS", "must be -1 (forever) or a positive number of ms");
    }
    if (applicationServer != null && !applicationServer.matches("[^:/\\s]+:\\d{1,5}")) {
      throw new ConfigException(
          "SVC_ADVERTISED_URL",
          "application server must be host:port, not '" + applicationServer + "'");
    }
  }

  public TaskViewConfig(
      String bootstrapServers,
      String applicationId,
      Path stateDir,
      int partitions,
      short replicationFactor) {
    this(bootstrapServers, applicationId, stateDir, partitions, replicationFactor, null, null);
  }

  public TaskViewConfig(
      String bootstrapServers,
      String applicationId,
      Path stateDir,
      int partitions,
      short replicationFactor,
      String applicationServer,
      String internalToken) {
    this(
        bootstrapServers,
        applicationId,
        stateDir,
        partitions,
        replicationFactor,
        applicationServer,
        internalToken,
        RETAIN_FOREVER);
  }

  /** The same view with another retention for the event log it creates. */
  public TaskViewConfig withEventsRetentionMs(long ms) {
    return new TaskViewConfig(
        bootstrapServers,
        applicationId,
        stateDir,
        partitions,
        replicationFactor,
        applicationServer,
        internalToken,
        ms);
  }

  /**
   * {@code SVC_TASK_EVENTS_RETENTION_MS}: default {@link #RETAIN_FOREVER}; checked by the
   * constructor.
   */
  public static long eventsRetentionFromEnv(java.util.Map<String, String> vars) {
    String v = vars.get("SVC_TASK_EVENTS_RETENTION_MS");
    if (v == null || v.isBlank()) {
      return RETAIN_FOREVER;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(
          "SVC_TASK_EVENTS_RETENTION_MS", "'" + v + "' is not a number of milliseconds");
    }
  }

  /** No token: the secret is redacted from the record's text form. */
  @Override
  public String toString() {
    return "TaskViewConfig[bootstrapServers="
        + bootstrapServers
        + ", applicationId="
        + applicationId
        + ", stateDir="
        + stateDir
        + ", partitions="
        + partitions
        + ", applicationServer="
        + applicationServer
        + ", internalToken="
        + (internalToken == null ? "unset" : "***")
        + ", eventsRetentionMs="
        + eventsRetentionMs
        + "]";
  }
}

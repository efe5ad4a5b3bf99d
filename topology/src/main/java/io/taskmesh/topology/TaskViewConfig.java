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
    String internalToken) {

  /** The header a forwarded query carries the replicas' shared secret in. */
  public static final String INTERNAL_TOKEN_HEADER = "X-Svc-Internal-Token";

  public TaskViewConfig {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new ConfigException("KAFKA_BOOTSTRAP_SERVERS", "required but not set");
    }
    if (partitions < 1) {
      throw new ConfigException("SVC_TASK_TOPIC_PARTITIONS", "task topic partitions must be >= 1");
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
        + "]";
  }
}

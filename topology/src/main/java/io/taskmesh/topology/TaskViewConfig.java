package io.taskmesh.topology;

import java.nio.file.Path;

/**
 * How the task view runs: the broker, the Streams application id (shared by every gateway
 * replica), where RocksDB keeps its files, how the task topics are created when missing, and
 * this replica's address for interactive queries ({@code host:port}, Streams'
 * {@code application.server}; null for a single replica that never forwards).
 */
public record TaskViewConfig(
    String bootstrapServers,
    String applicationId,
    Path stateDir,
    int partitions,
    short replicationFactor,
    String applicationServer) {

  public TaskViewConfig {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("task topic partitions must be >= 1");
    }
    if (applicationServer != null && !applicationServer.matches("[^:/\\s]+:\\d{1,5}")) {
      throw new IllegalArgumentException("application server must be host:port, not '" + applicationServer + "'");
    }
  }

  public TaskViewConfig(String bootstrapServers, String applicationId, Path stateDir, int partitions,
      short replicationFactor) {
    this(bootstrapServers, applicationId, stateDir, partitions, replicationFactor, null);
  }
}

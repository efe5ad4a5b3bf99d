package io.taskmesh.topology;

import java.nio.file.Path;

/**
 * How the task view runs: the broker, the Streams application id (shared by every gateway
 * replica), where RocksDB keeps its files, and how the task topics are created when missing.
 */
public record TaskViewConfig(
    String bootstrapServers,
    String applicationId,
    Path stateDir,
    int partitions,
    short replicationFactor) {

  public TaskViewConfig {
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      throw new IllegalArgumentException("KAFKA_BOOTSTRAP_SERVERS is required");
    }
    if (partitions < 1) {
      throw new IllegalArgumentException("task topic partitions must be >= 1");
    }
  }
}

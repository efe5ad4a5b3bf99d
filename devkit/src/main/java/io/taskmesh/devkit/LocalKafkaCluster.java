package io.taskmesh.devkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.common.Uuid;

/**
 * A real KRaft cluster of {@code n} nodes, each a child JVM ({@link LocalKafka}) that is both
 * broker and controller, with its own log directory ({@code dataDir/node-<id>}) and ports. Every
 * node votes in the controller quorum, so with three a node can be killed and the other two keep
 * electing leaders. Internal and auto-created topics get replication factor {@link
 * #replicationFactor()} and {@link #minInsyncReplicas()}.
 */
public final class LocalKafkaCluster implements AutoCloseable {
  private final List<LocalKafka> nodes;
  private final int replicationFactor;
  private final int minInsyncReplicas;

  private LocalKafkaCluster(List<LocalKafka> nodes, int replicationFactor, int minInsyncReplicas) {
    this.nodes = List.copyOf(nodes);
    this.replicationFactor = replicationFactor;
    this.minInsyncReplicas = minInsyncReplicas;
  }

  /** Starts {@code n} nodes under {@code dataDir} and returns when every one answers. */
  public static LocalKafkaCluster start(Path dataDir, int n) {
    if (n < 1 || n > 9) {
      throw new IllegalArgumentException("brokers must be 1..9, was " + n);
    }
    int replication = replicationFactorFor(n);
    int minIsr = minInsyncReplicasFor(replication);
    List<Integer> ports = distinctFreePorts(2 * n);
    String voters =
        IntStream.range(0, n)
            .mapToObj(i -> (i + 1) + "@127.0.0.1:" + ports.get(n + i))
            .collect(Collectors.joining(","));
    String clusterId = Uuid.randomUuid().toString();
    List<LocalKafka> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(
          LocalKafka.clusterNode(
              dataDir.resolve("node-" + (i + 1)),
              ports.get(i),
              ports.get(n + i),
              new LocalKafka.ClusterRole(i + 1, voters, clusterId, replication, minIsr)));
    }
    LocalKafkaCluster cluster = new LocalKafkaCluster(nodes, replication, minIsr);
    try {
      // all first, then wait: no controller elects a leader before a majority of voters runs
      nodes.forEach(LocalKafka::launch);
      nodes.forEach(node -> node.awaitReady(LocalKafka.readyTimeout(Duration.ofMinutes(2))));
      return cluster;
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /** Three replicas once there are three brokers (fewer brokers: one per broker). */
  public static int replicationFactorFor(int brokers) {
    return Math.min(brokers, 3);
  }

  /**
   * A majority of the replicas, so an acknowledged write survives losing one of three brokers and
   * writes go on while one is down; with one or two replicas, one (writes go on with one left).
   */
  public static int minInsyncReplicasFor(int replicationFactor) {
    return replicationFactor <= 2 ? 1 : replicationFactor / 2 + 1;
  }

  /** Every node's broker address, comma-separated. */
  public String bootstrapServers() {
    return nodes.stream().map(LocalKafka::bootstrapServers).collect(Collectors.joining(","));
  }

  public int size() {
    return nodes.size();
  }

  /** Node {@code i} (0-based): kill and restart it to simulate a broker crash. */
  public LocalKafka node(int i) {
    return nodes.get(i);
  }

  public int replicationFactor() {
    return replicationFactor;
  }

  public int minInsyncReplicas() {
    return minInsyncReplicas;
  }

  @Override
  public void close() {
    // stop in parallel: a node shutting down cleanly waits for the others' controllers
    List<Thread> stoppers =
        nodes.stream().map(n -> new Thread(n::close, "kafka-node-stop")).toList();
    stoppers.forEach(Thread::start);
    for (Thread t : stoppers) {
      try {
        t.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static List<Integer> distinctFreePorts(int count) {
    List<Integer> ports = new ArrayList<>();
    while (ports.size() < count) {
      int p = LocalKafka.freePort();
      if (!ports.contains(p)) {
        ports.add(p);
      }
    }
    return ports;
  }
}

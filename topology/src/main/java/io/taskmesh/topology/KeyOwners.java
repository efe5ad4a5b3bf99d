package io.taskmesh.topology;

import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Which replica owns a task key, from Streams' key metadata. Without an {@code application.server}
 * this replica is the only one and owns every key.
 */
final class KeyOwners {
  private final KafkaStreams streams;
  private final String storeName;
  private final HostInfo self;

  KeyOwners(KafkaStreams streams, String storeName, String applicationServer) {
    this.streams = streams;
    this.storeName = storeName;
    this.self = applicationServer == null ? null : HostInfo.buildFromEndpoint(applicationServer);
  }

  /** Whether this replica is the only one (no {@code application.server}). */
  boolean single() {
    return self == null;
  }

  boolean isSelf(HostInfo host) {
    return self.equals(host);
  }

  /**
   * The key's active owner and partition.
   *
   * @throws ViewUnavailableException while the view is not running or is rebalancing
   */
  KeyQueryMetadata of(String taskId) {
    KeyQueryMetadata md;
    try {
      md = streams.queryMetadataForKey(storeName, taskId, Serdes.String().serializer());
    } catch (IllegalStateException | StreamsException e) {
      throw new ViewUnavailableException("task view is not running, retry shortly", e);
    }
    if (md == null
        || KeyQueryMetadata.NOT_AVAILABLE.equals(md)
        || md.activeHost() == null
        || md.activeHost().port() < 0) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", null);
    }
    return md;
  }

  /** Every replica Streams knows of, except this one. */
  List<HostInfo> otherReplicas() {
    return streams.metadataForAllStreamsClients().stream()
        .map(StreamsMetadata::hostInfo)
        .filter(host -> !self.equals(host))
        .toList();
  }
}

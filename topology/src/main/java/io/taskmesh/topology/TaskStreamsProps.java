package io.taskmesh.topology;

import io.taskmesh.servicekit.TopicCreator;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;

/** The Streams settings of the fold, live or replaying. */
final class TaskStreamsProps {
  /** Live: consumers of the update topic that read committed see an update at most this late. */
  static final int LIVE_COMMIT_INTERVAL_MS = 100;

  /**
   * Replay: nobody waits for the updates, and fewer transactions fold faster (figures:
   * docs/bench/2026-11-27-figures-from-comments.md).
   */
  static final int REPLAY_COMMIT_INTERVAL_MS = 1000;

  /**
   * Live: no compression. A live batch holds one to a few updates (linger 5 ms), which lz4 does not
   * shrink, and each lz4 batch allocated a whole block buffer: a large share of everything the JVM
   * allocated, and more frequent young collections (figures:
   * docs/bench/2026-11-27-figures-from-comments.md).
   */
  static final String LIVE_COMPRESSION = "none";

  /** Replay: large batches of updates and changelog records, which lz4 does shrink. */
  static final String REPLAY_COMPRESSION = "lz4";

  private TaskStreamsProps() {}

  /** The live view's Streams settings ({@link #of(TaskViewConfig, boolean)}). */
  static Properties of(TaskViewConfig config) {
    return of(config, false);
  }

  /**
   * The Streams settings of every replica, live or replaying (commit interval and compression
   * differ); exactly-once v2 is not optional.
   */
  static Properties of(TaskViewConfig config, boolean replay) {
    Properties p = baseStreamsProps(config);
    p.put(
        StreamsConfig.COMMIT_INTERVAL_MS_CONFIG,
        replay ? REPLAY_COMMIT_INTERVAL_MS : LIVE_COMMIT_INTERVAL_MS);
    p.put(
        StreamsConfig.producerPrefix(ProducerConfig.COMPRESSION_TYPE_CONFIG),
        replay ? REPLAY_COMPRESSION : LIVE_COMPRESSION);
    return p;
  }

  private static Properties baseStreamsProps(TaskViewConfig config) {
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, config.applicationId());
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(StreamsConfig.STATE_DIR_CONFIG, config.stateDir().toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    // every store of the fold in this JVM shares one RocksDB budget (BoundedRocksDb)
    p.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class);
    // the record cache of the stores a replay caches (TaskTopology.build, cacheStates): it
    // collapses
    // the writes of a task's burst of events into one per commit; the live view's stores are
    // uncached
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 32L * 1024 * 1024);
    // Streams' own producer default is linger.ms=100: every update would wait up to 100 ms
    // before it is even sent. 5 ms, measured against 0, 1, 2 and 10 (SseLatencyBench): a shorter
    // linger cuts the p50 but about doubles the p99 (more, smaller transactional produce
    // requests); 10 ms is worse at both (figures: docs/bench/2026-11-27-figures-from-comments.md)
    p.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 5);
    // An exactly-once commit every 100 ms: the next transaction's first requests (offsets, new
    // partitions) meet CONCURRENT_TRANSACTIONS while the coordinator is still writing the last
    // commit's markers, and are retried after retry.backoff.ms (default 100 ms), which stalled the
    // fold (event -> fold lag: docs/bench/2026-11-27-figures-from-comments.md). The backoff still
    // grows
    // exponentially up to retry.backoff.max.ms on repeated failures.
    p.put(StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG), 5);
    p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, (int) config.replicationFactor());
    // the changelog and repartition topics Streams creates: the same majority as our own topics
    p.put(
        StreamsConfig.topicPrefix(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG),
        TopicCreator.Spec.minInsyncReplicas(config.replicationFactor()));
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.MAX_POLL_RECORDS_CONFIG), 2000);
    // a replica that dies without leaving (kill -9, lost node) hands its partitions over after
    // 10 s instead of the default 45 s; its tasks answer 503 meanwhile
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
    p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 2_000);
    if (config.applicationServer() != null) {
      p.put(StreamsConfig.APPLICATION_SERVER_CONFIG, config.applicationServer());
    }
    return p;
  }
}

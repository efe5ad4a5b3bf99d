package io.taskmesh.topology;

import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.KafkaProducers;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.servicekit.ops.KafkaMeters;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * The running task view of one gateway process: the Streams fold, the producer that appends events,
 * and the live update feed. Implements the ports the HTTP layer uses.
 */
public final class TaskView implements TaskQueries, TaskCommands, AutoCloseable {
  private final TaskViewConfig config;
  private final TaskTopics topics;
  private final KafkaProducer<String, TaskEvent> producer;
  private final KafkaStreams streams;
  private final KafkaUpdateFeed feed;
  private final HostInfo self;
  private final RemoteTaskQueries remote;
  private final AutoCloseable streamsMeters;
  private final AutoCloseable producerMeters;

  /** Live: consumers of the update topic that read committed see an update at most this late. */
  static final int LIVE_COMMIT_INTERVAL_MS = 100;

  /**
   * Replay: nobody waits for the updates, and fewer transactions fold faster (1M events: ~62 -> ~58
   * s).
   */
  static final int REPLAY_COMMIT_INTERVAL_MS = 1000;

  /**
   * Live: no compression. A live batch holds one to a few updates (linger 5 ms), which lz4 does not
   * shrink, and each lz4 batch allocated a 64 KB block buffer: 41 % of everything allocated in the
   * JVM of SseLatencyBench (gateway and clients) at 1,000 events/s. Without it the JVM allocates 43
   * % less and collects its young generation every ~1.1 s instead of every ~0.65 s (2026-11-25).
   */
  static final String LIVE_COMPRESSION = "none";

  /** Replay: large batches of updates and changelog records, which lz4 does shrink. */
  static final String REPLAY_COMPRESSION = "lz4";

  private TaskView(TaskViewConfig config, TaskTopics topics, boolean replay) {
    this.config = config;
    this.topics = topics;
    this.remote = new RemoteTaskQueries(config.internalToken());
    this.producer =
        KafkaProducers.idempotent(config.bootstrapServers())
            .set(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000)
            .set(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000)
            // one produce request at a time: while it is out, the events of concurrent calls
            // gather and leave together in the next one (fewer, fuller requests: less broker and
            // client CPU per call), and a lone caller never waits (linger stays 0)
            .set(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1)
            .create(
                topics.events().keySerde().serializer(), topics.events().valueSerde().serializer());
    Properties props = streamsProps(config, replay);
    // a replay never fires a deadline (it would append to the log it reads); the live view fires
    // them on a partition once it has folded that partition's log up to its end
    FoldCaughtUp caughtUp = new FoldCaughtUp(topics.events().name());
    this.streams =
        new KafkaStreams(
            TaskTopology.build(
                    new StreamsBuilder(),
                    topics,
                    TaskTopology.DEFAULT_DEADLINE_SCAN,
                    replay,
                    replay ? TaskTopology.DeadlineGate.NEVER : caughtUp)
                .build(),
            props);
    caughtUp.bind(streams);
    this.streamsMeters = TaskViewMetrics.bind(streams);
    this.producerMeters = KafkaMeters.bind(producer);
    this.feed = new KafkaUpdateFeed(config.bootstrapServers(), topics.updates());
    this.self =
        config.applicationServer() == null
            ? null
            : HostInfo.buildFromEndpoint(config.applicationServer());
  }

  /** Creates the topics when missing, starts the fold and the feed, and waits until both run. */
  public static TaskView start(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    return start(config, topics, timeout, false);
  }

  /**
   * The fold alone, without the live update feed and with a longer commit interval: for a replay,
   * where nobody subscribes and the feed would only read back every update the fold writes.
   */
  static TaskView startFoldOnly(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    return start(config, topics, timeout, true);
  }

  private static TaskView start(
      TaskViewConfig config, TaskTopics topics, Duration timeout, boolean replay) {
    ensureTopics(config, topics);
    TaskView view = new TaskView(config, topics, replay);
    try {
      if (!replay) {
        view.feed.start();
      }
      view.streams.start();
      view.awaitRunning(timeout);
      return view;
    } catch (RuntimeException e) {
      view.close();
      throw e;
    }
  }

  public UpdateFeed feed() {
    return feed;
  }

  /**
   * Finds the key's owner ({@code queryMetadataForKey}); answers from the local store when it is
   * this replica, else forwards to the owner's {@code GET /internal/tasks/{id}}. Never a 404 that
   * is only a wrong owner: an unknown or moving owner is a {@link ViewUnavailableException}.
   */
  @Override
  public Optional<TaskState> get(String taskId) {
    if (self == null) {
      return local(taskId, null);
    }
    KeyQueryMetadata md = metadata(taskId);
    if (self.equals(md.activeHost())) {
      return local(taskId, md.partition());
    }
    return remote.get(md.activeHost(), taskId);
  }

  @Override
  public Optional<TaskState> getLocal(String taskId) {
    if (self == null) {
      return local(taskId, null);
    }
    KeyQueryMetadata md = metadata(taskId);
    if (!self.equals(md.activeHost())) {
      throw new ViewUnavailableException(
          "task "
              + taskId
              + " is owned by "
              + md.activeHost()
              + ", not by this replica; retry shortly",
          null);
    }
    return local(taskId, md.partition());
  }

  @Override
  public Optional<Boolean> ownsLocally(String taskId) {
    if (self == null) {
      return Optional.of(true);
    }
    try {
      return Optional.of(self.equals(metadata(taskId).activeHost()));
    } catch (ViewUnavailableException e) {
      return Optional.empty();
    }
  }

  private KeyQueryMetadata metadata(String taskId) {
    KeyQueryMetadata md;
    try {
      md = streams.queryMetadataForKey(topics.storeName(), taskId, Serdes.String().serializer());
    } catch (IllegalStateException | org.apache.kafka.streams.errors.StreamsException e) {
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

  private Optional<TaskState> local(String taskId, Integer partition) {
    try {
      StoreQueryParameters<ReadOnlyKeyValueStore<String, TaskState>> params =
          StoreQueryParameters.fromNameAndType(
              topics.storeName(), QueryableStoreTypes.keyValueStore());
      StoreQueryParameters<ReadOnlyKeyValueStore<String, TaskUpdate>> historyParams =
          StoreQueryParameters.fromNameAndType(
              TaskHistory.storeName(topics), QueryableStoreTypes.keyValueStore());
      if (partition != null) {
        params = params.withPartition(partition);
        historyParams = historyParams.withPartition(partition);
      }
      TaskState s = streams.store(params).get(taskId);
      return Optional.ofNullable(
          s == null ? null : TaskHistory.attach(streams.store(historyParams), s));
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }

  @Override
  public void append(TaskEvent event) {
    try {
      producer
          .send(new ProducerRecord<>(topics.events().name(), event.taskId(), event))
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EventLogException("interrupted while appending a task event", e);
    } catch (ExecutionException | TimeoutException | org.apache.kafka.common.KafkaException e) {
      throw new EventLogException(
          "cannot append to " + topics.events().name() + ": " + e.getMessage(), e);
    }
  }

  /** How many tasks this replica's local stores hold (a full scan, without their histories). */
  public int localTaskCount() {
    int[] n = {0};
    scanLocal(s -> n[0]++);
    return n[0];
  }

  /**
   * Every task in this replica's local stores (the partitions it owns), sorted by id: for checks
   * and tools (replay verification), linear in the number of tasks.
   */
  public List<TaskState> localTasks() {
    List<TaskState> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, TaskUpdate> history = store(TaskHistory.storeName(topics));
    scanLocal(s -> out.add(TaskHistory.attach(history, s)));
    out.sort(Comparator.comparing(TaskState::id));
    return out;
  }

  @Override
  public List<TaskState> localTasksOf(String owner) {
    List<TaskState> out = new ArrayList<>();
    ReadOnlyKeyValueStore<String, TaskUpdate> history = store(TaskHistory.storeName(topics));
    scanLocal(
        s -> {
          if (Objects.equals(owner, s.owner())) {
            out.add(TaskHistory.attach(history, s));
          }
        });
    return out;
  }

  /**
   * Hands every task state of this replica's local stores (without its history) to {@code each}.
   */
  private void scanLocal(Consumer<TaskState> each) {
    ReadOnlyKeyValueStore<String, TaskState> states = store(topics.storeName());
    try (org.apache.kafka.streams.state.KeyValueIterator<String, TaskState> it = states.all()) {
      it.forEachRemaining(
          kv -> {
            if (kv.value != null) {
              each.accept(kv.value);
            }
          });
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }

  /** A store of every partition this replica owns. */
  private <V> ReadOnlyKeyValueStore<String, V> store(String name) {
    try {
      return streams.store(
          StoreQueryParameters.fromNameAndType(
              name, QueryableStoreTypes.<String, V>keyValueStore()));
    } catch (InvalidStateStoreException e) {
      throw new ViewUnavailableException("task view is rebalancing, retry shortly", e);
    }
  }

  /**
   * This replica's tasks of the owner plus every other replica's ({@code GET
   * /internal/tasks?owner=} on each {@code application.server} Streams knows of). Each replica
   * scans only its active stores, so a task is counted once.
   */
  @Override
  public List<TaskState> tasksOf(String owner) {
    List<TaskState> out = new ArrayList<>(localTasksOf(owner));
    if (self == null) {
      return out;
    }
    for (org.apache.kafka.streams.StreamsMetadata md : streams.metadataForAllStreamsClients()) {
      if (!self.equals(md.hostInfo())) {
        out.addAll(remote.tasksOf(md.hostInfo(), owner));
      }
    }
    return out;
  }

  public KafkaStreams.State state() {
    return streams.state();
  }

  @Override
  public void close() {
    feed.close();
    // leave the group at once so another replica takes the partitions over now, not after the
    // session timeout (Streams does not leave on a plain close)
    streams.close(
        org.apache.kafka.streams.CloseOptions.groupMembershipOperation(
                org.apache.kafka.streams.CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(20)));
    producer.close(Duration.ofSeconds(5));
    KafkaMeters.unbind(streamsMeters);
    KafkaMeters.unbind(producerMeters);
  }

  private void awaitRunning(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      if (streams.state() == KafkaStreams.State.ERROR
          || streams.state() == KafkaStreams.State.NOT_RUNNING
          || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "task view did not reach RUNNING (state " + streams.state() + ")");
      }
      try {
        Thread.sleep(20); // Streams offers a state listener, but one waiter at start-up is simpler
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the task view", e);
      }
    }
  }

  /** The live view's Streams settings ({@link #streamsProps(TaskViewConfig, boolean)}). */
  static Properties streamsProps(TaskViewConfig config) {
    return streamsProps(config, false);
  }

  /**
   * The Streams settings of every replica, live or replaying (commit interval and compression
   * differ); exactly-once v2 is not optional.
   */
  static Properties streamsProps(TaskViewConfig config, boolean replay) {
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
    // the record cache of the stores a replay caches (TaskTopology.build, cacheStates): it
    // collapses
    // the writes of a task's burst of events into one per commit; the live view's stores are
    // uncached
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 32L * 1024 * 1024);
    // Streams' own producer default is linger.ms=100: every update would wait up to 100 ms
    // before it is even sent. 5 ms, measured against 0, 1, 2 and 10 at 1,000 events/s
    // (SseLatencyBench, 2026-11-25): a shorter linger cuts the p50 (4.8 -> 1.3-3.1 ms) but about
    // doubles the p99 (17 -> 25-33 ms: more, smaller transactional produce requests); 10 ms is
    // worse at both
    p.put(
        StreamsConfig.producerPrefix(
            org.apache.kafka.clients.producer.ProducerConfig.LINGER_MS_CONFIG),
        5);
    // An exactly-once commit every 100 ms: the next transaction's first requests (offsets, new
    // partitions) meet CONCURRENT_TRANSACTIONS while the coordinator is still writing the last
    // commit's markers, and are retried after retry.backoff.ms (default 100 ms), which stalled the
    // fold (event -> fold lag p50 16 ms, p99 80 ms at 100 events/s; 4 / 30 ms with 5 ms). The
    // backoff still grows exponentially up to retry.backoff.max.ms on repeated failures.
    p.put(
        StreamsConfig.producerPrefix(
            org.apache.kafka.clients.producer.ProducerConfig.RETRY_BACKOFF_MS_CONFIG),
        5);
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

  private static void ensureTopics(TaskViewConfig config, TaskTopics topics) {
    TopicCreator.Spec spec = TopicCreator.Spec.of(config.partitions(), config.replicationFactor());
    try (TopicCreator creator = new TopicCreator(config.bootstrapServers())) {
      // the log is replay's only input: kept for as long as configured (forever by default), not
      // for the cluster's default retention
      creator.ensure(List.of(topics.events().name()), eventLogSpec(config));
      creator.ensure(List.of(topics.updates().name()), spec);
    }
  }

  /** How the event log is created: the task topics' spec with its own {@code retention.ms}. */
  static TopicCreator.Spec eventLogSpec(TaskViewConfig config) {
    TopicCreator.Spec spec = TopicCreator.Spec.of(config.partitions(), config.replicationFactor());
    Map<String, String> configs = new java.util.HashMap<>(spec.configs());
    configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(config.eventsRetentionMs()));
    return new TopicCreator.Spec(spec.partitions(), spec.replication(), configs);
  }
}

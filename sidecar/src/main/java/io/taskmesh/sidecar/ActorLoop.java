package io.taskmesh.sidecar;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Times;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.KafkaProducers;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.servicekit.logging.LogContext;
import io.taskmesh.servicekit.ops.KafkaMeters;
import io.taskmesh.servicekit.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidPidMappingException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.UnknownProducerIdException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The consume-handle-produce loop shared by the sidecar and the crew actors. One Kafka transaction
 * per poll batch carries every output record and the consumed offsets ({@code
 * sendOffsetsToTransaction}), so a crash anywhere either commits the whole batch or nothing;
 * read_committed consumers downstream never see a half batch.
 *
 * <p>Poison envelopes: before a batch is handled, the start offset of each of its partitions is
 * committed with metadata {@code deliveries=<offset>:<n>}. After a crash the next owner reads it
 * back: a second delivery of the same start offset is handled alone (one record per batch), and a
 * record delivered more than {@code maxDeliveries} times goes to the dead-letter topic unhandled.
 * That extra commit is a coordinator round trip per batch, so each transaction also writes the mark
 * for the batch that follows it ({@code deliveries=<next>:1} on the committed offset): when the
 * next batch starts there, its first delivery is already recorded and no commit is needed. A clean
 * hand-over resets the mark to {@code :0} ({@link Rebalance#onPartitionsRevoked}); if that reset is
 * lost the next owner counts one delivery too many (it then handles that record alone).
 */
final class ActorLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ActorLoop.class);
  private static final String DELIVERIES = "deliveries=";

  /**
   * How long one poll may block with nothing to read. A poll returns as soon as a fetch brings
   * records, so this only decides how often an idle actor's thread wakes up; {@link #close()} wakes
   * a waiting poll at once.
   */
  static final Duration IDLE_POLL = Duration.ofSeconds(5);

  /**
   * How long the broker may hold an idle actor's fetch (Kafka's default is 500 ms). A fetch is
   * answered as soon as a record is committed on one of its partitions, so a task never waits for
   * it; it only decides how often an idle actor asks, and each ask is a request the broker handles
   * (the largest part of an idle stack's CPU with the default). The price: the first fetch after a
   * seek (a redelivered record handled alone) or after a rebalance can wait for the one still held,
   * so at most this long.
   */
  static final Duration IDLE_FETCH_WAIT = Duration.ofSeconds(2);

  /** Handles one record; runs on a worker thread when concurrency is above 1. */
  @FunctionalInterface
  interface Handler {
    Outcome handle(ConsumerRecord<String, byte[]> record);

    /**
     * Runs once per batch before its outputs are committed, i.e. before anyone downstream can read
     * them.
     */
    default void beforeCommit() {}

    /**
     * True for a handler whose outcomes never carry an output (x-sump): with nothing to make atomic
     * with its offsets, a batch of it commits them through the consumer, without a transaction (one
     * request instead of a transaction's three and its marker). Dead letters are still written in a
     * transaction with their offsets.
     */
    default boolean routesNothing() {
      return false;
    }

    /**
     * How long a fetch may wait for more records (up to {@link #GATHER_BYTES}) before the broker
     * answers: zero for an actor a caller waits on, whose fetch answers with the first record; a
     * crew actor no answer waits on gathers fuller batches, so fewer transactions per task.
     */
    default Duration gathersFor() {
      return Duration.ZERO;
    }
  }

  /** What a gathering fetch waits for at most: some hundred envelopes of the usual size. */
  static final int GATHER_BYTES = 64 * 1024;

  private final SidecarConfig config;
  private final Handler handler;
  private final ExitHook exitHook;
  private final TopicCreator admin;
  private final String deadLetterTopic;
  private final AtomicBoolean running = new AtomicBoolean();
  private final Map<TopicPartition, long[]> deliveries = new HashMap<>();

  /** Per partition, the offset whose first delivery this loop's last commit already recorded. */
  private final Map<TopicPartition, Long> premarked = new HashMap<>();

  private ExecutorService workers;
  private ScheduledExecutorService offsetSender;
  private KafkaConsumer<String, byte[]> consumer;
  private KafkaProducer<String, byte[]> producer;
  private Thread thread;
  private AutoCloseable meters;

  ActorLoop(SidecarConfig config, Handler handler, ExitHook exitHook, TopicCreator admin) {
    this.config = config;
    this.handler = handler;
    this.exitHook = exitHook;
    this.admin = admin;
    this.deadLetterTopic = config.deadLetterTopic();
  }

  /** Creates the clients (topics must exist) and starts the loop thread. */
  synchronized void start() {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("already started");
    }
    consumer = new KafkaConsumer<>(consumerProps());
    producer = newProducer();
    meters = SidecarMetrics.of(config.actorName()).bind(consumer, producer, config.inputTopic());
    producer
        .initTransactions(); // fences and aborts what a crashed predecessor with this id left open
    workers =
        config.concurrency() > 1
            ? Threads.fixedPool(config.actorName() + "-worker", config.concurrency())
            : null;
    ScheduledThreadPoolExecutor sender =
        new ScheduledThreadPoolExecutor(
            1, Threads.daemon("actor-" + config.actorName() + "-offsets"));
    // every batch schedules its limit and nearly every one cancels it: dropped at once, not left
    // queued for half the transaction timeout to wake the thread when it is due
    sender.setRemoveOnCancelPolicy(true);
    offsetSender = sender;
    consumer.subscribe(List.of(config.inputTopic()), new Rebalance());
    thread = new Thread(this::run, "actor-" + config.actorName());
    thread.start();
  }

  boolean running() {
    return running.get();
  }

  private void run() {
    try {
      while (running.get()) {
        ConsumerRecords<String, byte[]> records;
        try {
          records = consumer.poll(IDLE_POLL);
        } catch (WakeupException stopping) {
          continue; // close() woke the poll: the loop condition sees the flag
        }
        if (!records.isEmpty() && !handleBatch(records)) {
          break;
        }
      }
    } catch (Exception e) {
      if (!running.get()) {
        // stopping: a broker that is already gone (Ctrl-C signals it too) fails the last poll or
        // commit; the batch is redelivered on the next start, nothing to report
        LOG.debug("{}: loop stopped while stopping: {}", config.actorName(), e.toString());
        closeClients();
        return;
      }
      LOG.error("{}: loop stopped", config.actorName(), e);
      if (running.get()) {
        running.set(false);
        closeClients();
        exitHook.exit(1);
        return;
      }
    }
    running.set(false);
    closeClients();
  }

  /**
   * The failure a dead-lettered envelope reports through x-sink, in the same transaction: the
   * dead-letter topic is where its task ends, so the task fails with the reason instead of staying
   * running until a deadline it may not have (issue 33 item 12). Null in a crew actor's own loop
   * (x-sink reports through nobody) and for a record that is no envelope (no task to fail).
   */
  private Outcome.Output deadLetterFailure(ConsumerRecord<String, byte[]> poison, long deliveries) {
    if (Topics.isCrewActor(config.actorName())) {
      return null;
    }
    EnvelopeReader.Read read = EnvelopeReader.read(poison.value());
    if (!read.valid()) {
      return null;
    }
    Envelope e = read.envelope();
    EnvelopeStatus s = e.status();
    String now = Times.iso(Instant.now());
    EnvelopeStatus failed =
        new EnvelopeStatus(
            EnvelopePhase.FAILED,
            config.actorName(),
            s == null || s.attempt() == null ? 1 : s.attempt(),
            config.maxAttempts(),
            s == null || s.createdAt() == null ? now : s.createdAt(),
            now,
            s == null ? null : s.deadlineAt(),
            Reasons.POISON,
            "the envelope was delivered "
                + deliveries
                + " times and never completed (the sidecar stopped each time); it was sent to "
                + deadLetterTopic);
    return new Outcome.Output(
        config.topicOf(Topics.SINK), e.id(), Json.bytes(e.withStatus(failed)));
  }

  /**
   * Marks the batch's deliveries, handles its records, commits their outputs and offsets in one
   * transaction, then runs what waits for the commit.
   *
   * @return false when the process must stop
   */
  private boolean handleBatch(ConsumerRecords<String, byte[]> records) {
    BatchPlan plan = plan(records);
    SidecarMetrics metrics = SidecarMetrics.of(config.actorName());
    metrics.batch(records.count());
    markDeliveries(plan.marks, metrics);

    EarlyOffsets early =
        handler.routesNothing()
            ? null
            : EarlyOffsets.begin(
                producer,
                offsetSender,
                BatchResult.ifAllHandled(plan),
                consumer.groupMetadata(),
                config.transactionTimeout().dividedBy(2));
    long handleStart = System.nanoTime();
    Map<TopicPartition, List<Outcome>> outcomes = handleAll(plan.records);
    metrics.step("handle", handleStart);
    BatchResult result = BatchResult.of(plan, outcomes);
    if (!commit(result.outputs, result.offsets, early)) {
      return running.get();
    }
    rememberCommitted(result.offsets);
    runAfterCommit(result.afterCommit);
    if (result.exits()) {
      exitAfter(plan, result);
      return false;
    }
    plan.rewind.forEach((tp, off) -> consumer.seek(tp, off));
    return true;
  }

  /**
   * Counts each partition's deliveries of its first record: a poison record goes to the dead-letter
   * topic unhandled, a redelivered one is handled alone, the rest of the batch as it came.
   */
  private BatchPlan plan(ConsumerRecords<String, byte[]> records) {
    BatchPlan plan = new BatchPlan();
    for (TopicPartition tp : records.partitions()) {
      List<ConsumerRecord<String, byte[]>> list = records.records(tp);
      long first = list.get(0).offset();
      long n = deliveryOf(tp, first);
      if (n > config.maxDeliveries()) {
        deadLetter(plan, tp, list.get(0), n - 1);
        continue;
      }
      if (n > 1) { // redelivered after a crash: handle it alone to find the poison one
        list = list.subList(0, 1);
        plan.rewind.put(tp, first + 1);
      }
      deliveries.put(tp, new long[] {first, n});
      Long premark = premarked.get(tp);
      if (n > 1 || premark == null || premark > first) {
        plan.marks.put(tp, new OffsetAndMetadata(first, DELIVERIES + first + ":" + n));
      }
      plan.records.put(tp, list);
    }
    return plan;
  }

  /** Which delivery of the record at {@code first} this is (1: the first). */
  private long deliveryOf(TopicPartition tp, long first) {
    long[] seen = deliveries.get(tp);
    // a mark names where the consumer started; the first record it gets may lie further on when
    // the offsets in between hold transaction markers or aborted records, never readable
    return seen != null && seen[0] <= first ? seen[1] + 1 : 1;
  }

  /** Plans {@code poison} for the dead-letter topic, with its task's failure report. */
  private void deadLetter(
      BatchPlan plan, TopicPartition tp, ConsumerRecord<String, byte[]> poison, long deliveries) {
    long first = poison.offset();
    LOG.error(
        "{}: record {}@{} delivered {} times without commit, sent to {}",
        config.actorName(),
        tp,
        first,
        deliveries,
        deadLetterTopic);
    plan.deadLetters.add(
        new Outcome.Output(
            deadLetterTopic,
            poison.key(),
            poison.value(),
            Map.of(
                "x-svc-dlq-reason",
                Reasons.POISON,
                "x-svc-dlq-deliveries",
                Long.toString(deliveries),
                "x-svc-dlq-source",
                tp + "@" + first)));
    Outcome.Output failure = deadLetterFailure(poison, deliveries);
    if (failure != null) {
      plan.deadLetters.add(failure);
    }
    plan.deadOffsets.put(tp, premark(first + 1));
    SidecarMetrics.of(config.actorName()).envelope("dlq");
    plan.rewind.put(tp, first + 1);
  }

  /** Commits the delivery marks the batch needs before anything of it is handled. */
  private void markDeliveries(
      Map<TopicPartition, OffsetAndMetadata> marks, SidecarMetrics metrics) {
    if (!marks.isEmpty()) {
      long markStart = System.nanoTime();
      consumer.commitSync(marks);
      metrics.step("mark", markStart);
    }
  }

  /** The committed offsets carry the next batch's first delivery mark: no count is left open. */
  private void rememberCommitted(Map<TopicPartition, OffsetAndMetadata> offsets) {
    offsets.keySet().forEach(deliveries::remove);
    offsets.forEach((tp, om) -> premarked.put(tp, om.offset()));
  }

  private void runAfterCommit(List<Runnable> actions) {
    for (Runnable r : actions) {
      try {
        r.run();
      } catch (RuntimeException e) {
        LOG.warn("{}: after-commit action failed: {}", config.actorName(), e.toString());
      }
    }
  }

  /** Stops the loop and exits with status 1 after a batch that timed out or lost the runtime. */
  private void exitAfter(BatchPlan plan, BatchResult result) {
    if (result.exitUncommitted) {
      forgetDeliveries(plan, result.offsets);
    }
    LOG.error(
        "{}: exiting with status 1 ({})",
        config.actorName(),
        result.exitAfter ? "runtime call timed out" : "runtime unavailable");
    running.set(false);
    closeClients();
    exitHook.exit(1);
  }

  /**
   * The runtime vanished: not the envelopes' fault, so the delivery counts of the partitions that
   * committed nothing are reset.
   */
  private void forgetDeliveries(BatchPlan plan, Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<TopicPartition, OffsetAndMetadata> reset = new HashMap<>();
    plan.records.forEach(
        (tp, list) -> {
          if (!committed.containsKey(tp)) {
            reset.put(tp, new OffsetAndMetadata(list.get(0).offset()));
          }
        });
    try {
      consumer.commitSync(reset);
    } catch (KafkaException e) {
      LOG.warn("cannot reset delivery counts: {}", e.toString());
    }
  }

  /** The offset to commit, marked as delivered once: the record there is what we poll next. */
  static OffsetAndMetadata premark(long next) {
    return new OffsetAndMetadata(next, DELIVERIES + next + ":1");
  }

  private Map<TopicPartition, List<Outcome>> handleAll(
      Map<TopicPartition, List<ConsumerRecord<String, byte[]>>> plan) {
    Map<TopicPartition, List<Outcome>> out = new HashMap<>();
    AtomicBoolean stop = new AtomicBoolean();
    if (workers == null) {
      for (var e : plan.entrySet()) {
        List<Outcome> results = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> r : e.getValue()) {
          results.add(stop.get() ? null : handleOne(r, stop));
        }
        out.put(e.getKey(), results);
      }
      return out;
    }
    Map<TopicPartition, List<Future<Outcome>>> futures = new HashMap<>();
    for (var e : plan.entrySet()) {
      List<Future<Outcome>> fs = new ArrayList<>();
      for (ConsumerRecord<String, byte[]> r : e.getValue()) {
        fs.add(workers.submit(() -> stop.get() ? null : handleOne(r, stop)));
      }
      futures.put(e.getKey(), fs);
    }
    futures.forEach(
        (tp, fs) -> {
          List<Outcome> results = new ArrayList<>();
          for (Future<Outcome> f : fs) {
            try {
              results.add(f.get());
            } catch (Exception ex) {
              throw new IllegalStateException("handler failed", ex);
            }
          }
          out.put(tp, results);
        });
    return out;
  }

  private Outcome handleOne(ConsumerRecord<String, byte[]> r, AtomicBoolean stop) {
    Outcome o =
        LogContext.with(r.key(), config.actorName(), traceparent(r), () -> handler.handle(r));
    if (o.kind() != Outcome.Kind.DONE) {
      stop.set(true); // records not started yet stay uncommitted and are handled after the restart
    }
    return o;
  }

  /**
   * The record's W3C trace context header, when a producer set one: the log lines' MDC until the
   * handler has read the envelope and names the trace it travels on.
   */
  private static String traceparent(ConsumerRecord<String, byte[]> r) {
    Header h = r.headers().lastHeader(TraceHeaders.TRACEPARENT);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /**
   * One transaction: every output plus the offsets; the offsets alone, without one, for a handler
   * that routes nothing ({@code early} is null then). @return false when it was aborted (batch
   * rewound).
   */
  private boolean commit(
      List<Outcome.Output> outputs,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      EarlyOffsets early) {
    if (early == null && outputs.isEmpty()) {
      return commitOffsetsOnly(offsets);
    }
    if (outputs.isEmpty() && offsets.isEmpty()) {
      early.claim(offsets); // the early offsets are never none: this aborts its transaction
      return true;
    }
    admin.ensure(
        outputs.stream().map(Outcome.Output::topic).distinct().toList(), config.topicSpec());
    SidecarMetrics metrics = SidecarMetrics.of(config.actorName());
    if (!outputs.isEmpty()) {
      long flushStart = System.nanoTime();
      handler.beforeCommit();
      metrics.step("before_commit", flushStart);
    }
    // a producer that is fenced or lost its transactional state is replaced once per batch and
    // the same transaction tried again: after a broker restart the coordinator may have fenced
    // it, and exiting would leave every envelope of this actor waiting for a supervisor
    for (int attempt = 1; ; attempt++) {
      try {
        transact(outputs, offsets, metrics, attempt == 1 ? early : null);
        return true;
      } catch (AuthorizationException denied) {
        throw denied; // no new producer gets permissions this one lacks
      } catch (KafkaException e) {
        if (!needsNewProducer(e)) {
          try {
            producer.abortTransaction();
            return handleAgain(offsets, "transaction aborted", e);
          } catch (KafkaException abortFailed) {
            e.addSuppressed(abortFailed); // the producer is unusable: replace it below
          }
        }
        if (attempt > 1) {
          throw e; // a new producer failed the same way: exit, to be restarted
        }
        LOG.warn(
            "{}: producer failed ({}); replacing it and trying the batch's transaction once more",
            config.actorName(),
            e.toString());
        replaceProducer();
      }
    }
  }

  /**
   * The batch's offsets through the consumer. A commit refused because the group moved on (this
   * member lost the partitions) leaves the batch to their new owner, as an aborted transaction
   * would. @return false then
   */
  private boolean commitOffsetsOnly(Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (offsets.isEmpty()) {
      return true;
    }
    long started = System.nanoTime();
    try {
      consumer.commitSync(offsets);
    } catch (CommitFailedException | RebalanceInProgressException e) {
      return handleAgain(offsets, "offsets not committed", e);
    }
    SidecarMetrics.of(config.actorName()).committed(started);
    return true;
  }

  /**
   * The batch committed nothing: its partitions go back to their committed offsets, and the batch
   * is handled again (here, or by the partitions' new owner). @return false, for the caller
   */
  private boolean handleAgain(
      Map<TopicPartition, OffsetAndMetadata> offsets, String what, RuntimeException why) {
    LOG.warn("{}: {}, batch will be handled again: {}", config.actorName(), what, why.toString());
    offsets.keySet().forEach(premarked::remove);
    rewindToCommitted(offsets.keySet());
    return false;
  }

  private void transact(
      List<Outcome.Output> outputs,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      SidecarMetrics metrics,
      EarlyOffsets early) {
    long started = System.nanoTime();
    boolean sentEarly = early != null && early.claim(offsets);
    if (!sentEarly) {
      producer.beginTransaction();
    }
    for (Outcome.Output o : outputs) {
      ProducerRecord<String, byte[]> rec = new ProducerRecord<>(o.topic(), o.key(), o.value());
      o.headers().forEach((k, v) -> rec.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
      producer.send(rec);
    }
    metrics.step("send", started);
    long offsetsStart = System.nanoTime();
    if (sentEarly) {
      early.awaitSent();
    } else {
      producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
    }
    metrics.step("offsets", offsetsStart);
    long commitStart = System.nanoTime();
    producer.commitTransaction();
    metrics.step("commit", commitStart);
    metrics.committed(started);
  }

  /**
   * Errors after which this producer can never commit again (Kafka's "fatal" transactional errors),
   * also when they arrive wrapped, e.g. as the cause of a failed commit.
   */
  static boolean needsNewProducer(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ProducerFencedException
          || t instanceof InvalidProducerEpochException
          || t instanceof OutOfOrderSequenceException
          || t instanceof UnknownProducerIdException
          || t instanceof InvalidPidMappingException) {
        return true;
      }
    }
    return false;
  }

  /**
   * Closes the broken producer and starts one with the same transactional id: its {@code
   * initTransactions} aborts whatever the old one left open, so the retried transaction is the
   * batch's only one.
   */
  private void replaceProducer() {
    try {
      producer.close(Duration.ZERO);
    } catch (RuntimeException e) {
      LOG.debug("broken producer close: {}", e.toString());
    }
    KafkaMeters.unbind(meters);
    producer = newProducer();
    meters = SidecarMetrics.of(config.actorName()).bind(consumer, producer, config.inputTopic());
    producer.initTransactions();
  }

  private void rewindToCommitted(Collection<TopicPartition> partitions) {
    Set<TopicPartition> assigned = consumer.assignment();
    Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions));
    for (TopicPartition tp : partitions) {
      if (!assigned.contains(tp)) {
        continue;
      }
      OffsetAndMetadata c = committed.get(tp);
      if (c != null) {
        consumer.seek(tp, c.offset());
      } else {
        consumer.seekToBeginning(List.of(tp));
      }
    }
  }

  private Properties consumerProps() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, config.inputTopic());
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.inputTopic() + "-" + config.instanceId());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, config.maxPollRecords());
    if (!handler.gathersFor().isZero()) {
      // the broker answers a fetch once it has this much, or when the gathering time is up
      p.put(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, GATHER_BYTES);
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) handler.gathersFor().toMillis());
    } else {
      p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, (int) IDLE_FETCH_WAIT.toMillis());
    }
    // a crashed member holds its partitions until this expires (unless replaced by static
    // membership)
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
    if (config
        .staticMember()) { // a restarted instance with the same id takes its partitions back at
      // once
      p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, config.transactionalId());
    }
    // a batch may hold slow runtime calls; the group must not evict us in the middle of one
    long interval = Math.max(300_000L, config.actorTimeout().toMillis() * 2 + 60_000L);
    p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) Math.min(Integer.MAX_VALUE, interval));
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return p;
  }

  private KafkaProducer<String, byte[]> newProducer() {
    return KafkaProducers.transactional(config.bootstrapServers(), config.transactionalId())
        .set(
            ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) config.transactionTimeout().toMillis())
        .create(new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * Loads the delivery counts that a crashed predecessor left in the committed offsets' metadata.
   */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      partitions.forEach(deliveries::remove);
      // nothing was delivered past our last commit: the next owner must not count a delivery
      Map<TopicPartition, OffsetAndMetadata> reset = new HashMap<>();
      for (TopicPartition tp : partitions) {
        Long next = premarked.remove(tp);
        if (next != null) {
          reset.put(tp, new OffsetAndMetadata(next, DELIVERIES + next + ":0"));
        }
      }
      if (!reset.isEmpty()) {
        try {
          consumer.commitSync(reset);
        } catch (KafkaException e) {
          LOG.debug("cannot reset delivery marks on hand-over: {}", e.toString());
        }
      }
    }

    /** Lost, not handed over: another member owns them already, so no reset can be committed. */
    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      partitions.forEach(deliveries::remove);
      partitions.forEach(premarked::remove);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      partitions.forEach(premarked::remove);
      if (partitions.isEmpty()) {
        return;
      }
      consumer
          .committed(Set.copyOf(partitions))
          .forEach(
              (tp, om) -> {
                if (om != null && om.metadata() != null && om.metadata().startsWith(DELIVERIES)) {
                  String[] v = om.metadata().substring(DELIVERIES.length()).split(":");
                  deliveries.put(tp, new long[] {Long.parseLong(v[0]), Long.parseLong(v[1])});
                }
              });
    }
  }

  private void closeClients() {
    KafkaMeters.unbind(meters);
    if (workers != null) {
      workers.shutdownNow();
    }
    offsetSender.shutdownNow();
    try {
      producer.close(Duration.ofSeconds(5));
    } catch (RuntimeException e) {
      LOG.debug("producer close: {}", e.toString());
    }
    try {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    } catch (RuntimeException e) {
      LOG.debug("consumer close: {}", e.toString());
    }
  }

  /** Stops after the current batch (whose transaction then commits or aborts as a whole). */
  @Override
  public void close() {
    Thread t = thread;
    // not running: never started, or the loop stopped itself (possibly calling System.exit from its
    // own thread)
    if (t == null || !running.getAndSet(false) || Thread.currentThread() == t) {
      return;
    }
    // a poll waiting for records returns at once. A batch whose handling has begun commits as a
    // whole (no blocking consumer call comes before its transaction ends); the calls that can see
    // the wake-up (the delivery mark before handling, the rewind after an abort) stop the loop like
    // a failure while stopping, before anything of the batch is committed
    try {
      consumer.wakeup();
    } catch (IllegalStateException closedMeanwhile) {
      // the loop failed and closed its clients at the same moment: nothing left to wake
    }
    try {
      t.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

package io.taskmesh.sidecar;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * A batch's transaction, begun before its records are handled, with the offsets the batch commits
 * if every record is handled already on their way to the group coordinator. That round trip then
 * runs while the runtime works instead of after it: one wait less on every hop. The outputs and the
 * commit follow on the loop's thread as before ({@link #claim}).
 *
 * <p>The transaction is open while the handler runs, and a handler may run longer than the
 * transaction timeout, after which the coordinator would abort it and fence the producer. So it
 * stays open at most {@code openAtMost} (half the timeout): then the sender aborts it, and the
 * batch commits in a transaction of its own, as when its offsets differ from the early ones (a
 * record that stopped the batch). Nothing of the batch is visible before its commit either way: the
 * early transaction holds no record, only offsets, and an abort drops them.
 */
final class EarlyOffsets {
  private enum State {
    OPEN,
    CLAIMED,
    EXPIRED
  }

  private final Producer<String, byte[]> producer;
  private final Map<TopicPartition, OffsetAndMetadata> offsets;
  private final AtomicReference<State> state = new AtomicReference<>(State.OPEN);
  private final Future<?> sent;
  private final Future<?> expiry;
  private volatile RuntimeException abortFailure;

  private EarlyOffsets(
      Producer<String, byte[]> producer,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      ConsumerGroupMetadata group,
      ScheduledExecutorService sender,
      Duration openAtMost) {
    this.producer = producer;
    this.offsets = offsets;
    // one sender thread: the expiry runs after the send, never beside it
    this.sent = sender.submit(() -> producer.sendOffsetsToTransaction(offsets, group));
    this.expiry = sender.schedule(this::expire, openAtMost.toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Begins the transaction and sends {@code offsets} to it from {@code sender}. The producer may be
   * shared between threads, the consumer may not: its group metadata is read by the caller.
   */
  static EarlyOffsets begin(
      Producer<String, byte[]> producer,
      ScheduledExecutorService sender,
      Map<TopicPartition, OffsetAndMetadata> offsets,
      ConsumerGroupMetadata group,
      Duration openAtMost) {
    producer.beginTransaction();
    return new EarlyOffsets(producer, offsets, group, sender, openAtMost);
  }

  /**
   * Claims the transaction for the batch's commit.
   *
   * @return true when it is open with exactly {@code committed} sent or on their way: the caller
   *     sends the outputs, {@link #awaitSent()} and commits. False when no transaction is open any
   *     more (it expired, or its offsets were not the batch's and it was aborted here): the caller
   *     begins one of its own.
   * @throws KafkaException as {@code abortTransaction} would
   */
  boolean claim(Map<TopicPartition, OffsetAndMetadata> committed) {
    if (!state.compareAndSet(State.OPEN, State.CLAIMED)) {
      awaitQuietly(expiry);
      if (abortFailure != null) {
        throw abortFailure;
      }
      return false;
    }
    expiry.cancel(false);
    if (offsets.equals(committed)) {
      return true;
    }
    awaitQuietly(sent);
    producer.abortTransaction();
    return false;
  }

  /** Waits for the early offsets; fails as {@code sendOffsetsToTransaction} would have. */
  void awaitSent() {
    await(sent);
  }

  /** Whether the limit passed before the batch claimed the transaction. */
  boolean expired() {
    return state.get() == State.EXPIRED;
  }

  private void expire() {
    if (!state.compareAndSet(State.OPEN, State.EXPIRED)) {
      return;
    }
    try {
      producer.abortTransaction();
    } catch (RuntimeException e) {
      abortFailure = e;
    }
  }

  private static void await(Future<?> f) {
    try {
      f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof KafkaException k) {
        throw k;
      }
      throw new KafkaException("sending the batch's offsets failed", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new KafkaException("interrupted while sending the batch's offsets", e);
    }
  }

  private static void awaitQuietly(Future<?> f) {
    try {
      await(f);
    } catch (KafkaException ignored) {
      // the transaction is aborted next: what failed in it goes with it
    } catch (CancellationException stopped) {
      // the sender stopped with the loop
    }
  }
}

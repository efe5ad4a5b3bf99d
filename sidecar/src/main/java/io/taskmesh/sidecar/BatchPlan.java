package io.taskmesh.sidecar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the loop decided about one poll batch before handling it ({@code ActorLoop.plan}): the
 * records to hand to the handler, the delivery marks to commit first, the poison records that go to
 * the dead-letter topic unhandled, and where each partition resumes after the commit.
 */
final class BatchPlan {
  /** Per partition, in poll order, the records to handle (a redelivered one alone). */
  final Map<TopicPartition, List<ConsumerRecord<String, byte[]>>> records = new LinkedHashMap<>();

  /**
   * Per partition, the offset to seek to once the batch committed: set when records were left out
   * of the batch, which the consumer has already fetched past.
   */
  final Map<TopicPartition, Long> rewind = new HashMap<>();

  /** The delivery marks to commit before the records are handled. */
  final Map<TopicPartition, OffsetAndMetadata> marks = new HashMap<>();

  /**
   * The dead-letter records (and their tasks' failure reports), sent in the batch's transaction.
   */
  final List<Outcome.Output> deadLetters = new ArrayList<>();

  /** The offsets past each dead-lettered record, committed in the batch's transaction. */
  final Map<TopicPartition, OffsetAndMetadata> deadOffsets = new HashMap<>();
}

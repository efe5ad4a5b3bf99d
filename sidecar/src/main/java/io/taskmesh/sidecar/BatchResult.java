package io.taskmesh.sidecar;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What one handled batch commits: the outputs and offsets of its transaction, the actions to run
 * once it committed, and whether the process exits afterwards. A partition's offset advances past
 * the last record handled in order; the first record that stops the batch and every one after it
 * stay uncommitted.
 */
final class BatchResult {
  final List<Outcome.Output> outputs;
  final Map<TopicPartition, OffsetAndMetadata> offsets;
  final List<Runnable> afterCommit = new ArrayList<>();

  /** A runtime call timed out: commit what was handled, then exit. */
  boolean exitAfter;

  /** The runtime is gone: commit what was handled before, then exit. */
  boolean exitUncommitted;

  private BatchResult(BatchPlan plan) {
    this.outputs = new ArrayList<>(plan.deadLetters);
    this.offsets = new HashMap<>(plan.deadOffsets);
  }

  /**
   * Collects the outcomes of {@code plan}'s records (null: not started, the batch stopped before)
   * and sets {@code plan.rewind} for each partition that did not get through its records.
   */
  static BatchResult of(BatchPlan plan, Map<TopicPartition, List<Outcome>> outcomes) {
    BatchResult result = new BatchResult(plan);
    for (var entry : plan.records.entrySet()) {
      TopicPartition tp = entry.getKey();
      List<ConsumerRecord<String, byte[]>> list = entry.getValue();
      long next = result.take(list, outcomes.get(tp));
      if (next > list.get(0).offset()) {
        result.offsets.put(tp, ActorLoop.premark(next));
      }
      if (next <= list.get(list.size() - 1).offset() || plan.rewind.containsKey(tp)) {
        plan.rewind.put(tp, next);
      }
    }
    return result;
  }

  /** The offsets the batch of {@code plan} commits when every one of its records is handled. */
  static Map<TopicPartition, OffsetAndMetadata> ifAllHandled(BatchPlan plan) {
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(plan.deadOffsets);
    plan.records.forEach(
        (tp, list) -> offsets.put(tp, ActorLoop.premark(list.get(list.size() - 1).offset() + 1)));
    return offsets;
  }

  /** Takes one partition's outcomes in order; returns the offset to resume that partition at. */
  private long take(List<ConsumerRecord<String, byte[]>> list, List<Outcome> results) {
    long next = list.get(0).offset();
    for (int i = 0; i < list.size(); i++) {
      Outcome o = results.get(i);
      if (o == null || o.kind() == Outcome.Kind.EXIT_UNCOMMITTED) {
        exitUncommitted |= o != null;
        break;
      }
      outputs.addAll(o.outputs());
      if (o.afterCommit() != null) {
        afterCommit.add(o.afterCommit());
      }
      next = list.get(i).offset() + 1;
      if (o.kind() == Outcome.Kind.DONE_THEN_EXIT) {
        exitAfter = true;
        break;
      }
    }
    return next;
  }

  boolean exits() {
    return exitAfter || exitUncommitted;
  }
}

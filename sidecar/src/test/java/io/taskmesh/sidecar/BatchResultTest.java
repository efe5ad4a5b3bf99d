package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class BatchResultTest {
  private static final TopicPartition TP = new TopicPartition("svc-default-a", 0);
  private static final Outcome.Output OUT = new Outcome.Output("next", "k", new byte[0]);

  private static BatchPlan planOf(long... offsets) {
    BatchPlan plan = new BatchPlan();
    plan.records.put(
        TP,
        Arrays.stream(offsets)
            .mapToObj(o -> new ConsumerRecord<String, byte[]>(TP.topic(), 0, o, "k", new byte[0]))
            .toList());
    return plan;
  }

  @Test
  void aBatchHandledWholeCommitsPastItsLastRecordAndIsNotRewound() {
    BatchPlan plan = planOf(10, 11);
    BatchResult r = BatchResult.of(plan, Map.of(TP, List.of(Outcome.done(OUT), Outcome.done(OUT))));
    assertThat(r.offsets.get(TP).offset()).isEqualTo(12);
    assertThat(r.outputs).hasSize(2);
    assertThat(r.exits()).isFalse();
    assertThat(plan.rewind).isEmpty();
  }

  @Test
  void aTimedOutCallCommitsItsRecordAndRewindsToTheRecordsAfterIt() {
    BatchPlan plan = planOf(10, 11, 12);
    BatchResult r =
        BatchResult.of(
            plan, Map.of(TP, Arrays.asList(Outcome.done(OUT), Outcome.doneThenExit(OUT), null)));
    assertThat(r.offsets.get(TP).offset()).isEqualTo(12);
    assertThat(r.exitAfter).isTrue();
    assertThat(r.exitUncommitted).isFalse();
    assertThat(plan.rewind).containsEntry(TP, 12L);
    // the offsets sent before handling were for the whole batch: its early transaction is aborted
    assertThat(BatchResult.ifAllHandled(plan)).isNotEqualTo(r.offsets);
  }

  @Test
  void aLostRuntimeCommitsNothingOfItsRecord() {
    BatchPlan plan = planOf(10, 11);
    BatchResult r =
        BatchResult.of(plan, Map.of(TP, Arrays.asList(Outcome.exitUncommitted(), null)));
    assertThat(r.offsets).isEmpty();
    assertThat(r.exitUncommitted).isTrue();
    assertThat(plan.rewind).containsEntry(TP, 10L);
  }

  @Test
  void theOffsetsSentBeforeHandlingAreWhatABatchHandledWholeCommits() {
    BatchPlan plan = planOf(10, 11);
    BatchResult r = BatchResult.of(plan, Map.of(TP, List.of(Outcome.done(OUT), Outcome.done(OUT))));
    assertThat(BatchResult.ifAllHandled(plan)).isEqualTo(r.offsets);
  }
}

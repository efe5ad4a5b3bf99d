package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicCreatorSpecTest {

  @Test
  void threeReplicasAskForTwoInSync() {
    assertThat(TopicCreator.Spec.of(6, (short) 3).configs())
        .containsExactly(Map.entry("min.insync.replicas", "2"));
    assertThat(TopicCreator.Spec.of(6, (short) 5).configs())
        .containsEntry("min.insync.replicas", "3");
  }

  @Test
  void oneOrTwoReplicasKeepTheBrokerDefault() {
    assertThat(TopicCreator.Spec.of(1, (short) 1).configs()).isEmpty();
    assertThat(TopicCreator.Spec.of(1, (short) 2).configs()).isEmpty();
  }

  @Test
  void compactionKeepsTheInSyncMinimum() {
    assertThat(TopicCreator.Spec.of(3, (short) 3).compacted().configs())
        .containsEntry("cleanup.policy", "compact")
        .containsEntry("min.insync.replicas", "2");
  }
}

package io.taskmesh.devkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LocalKafkaClusterTest {

  @Test
  void replicationFollowsTheBrokerCountUpToThree() {
    assertThat(LocalKafkaCluster.replicationFactorFor(1)).isEqualTo(1);
    assertThat(LocalKafkaCluster.replicationFactorFor(2)).isEqualTo(2);
    assertThat(LocalKafkaCluster.replicationFactorFor(3)).isEqualTo(3);
    assertThat(LocalKafkaCluster.replicationFactorFor(5)).isEqualTo(3);
  }

  @Test
  void aMajorityMustBeInSyncOnceThereAreThreeReplicas() {
    assertThat(LocalKafkaCluster.minInsyncReplicasFor(1)).isEqualTo(1);
    assertThat(LocalKafkaCluster.minInsyncReplicasFor(2)).isEqualTo(1);
    assertThat(LocalKafkaCluster.minInsyncReplicasFor(3)).isEqualTo(2);
  }

  @Test
  void refusesAClusterOfNoBrokers() {
    assertThatThrownBy(() -> LocalKafkaCluster.start(Path.of("unused"), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

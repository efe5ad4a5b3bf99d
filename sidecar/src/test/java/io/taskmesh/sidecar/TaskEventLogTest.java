package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The progress producer the sidecars of one JVM share (no broker: a producer connects lazily). */
class TaskEventLogTest {

  @Test
  void sidecarsOfOneJvmShareOneProducerPerBrokerListUntilTheLastCloses() {
    int before = TaskEventLog.sharedProducers();
    TaskEventLog upper = new TaskEventLog("127.0.0.1:1");
    TaskEventLog reverse = new TaskEventLog("127.0.0.1:1");
    TaskEventLog elsewhere = new TaskEventLog("127.0.0.1:2");
    try {
      assertThat(upper.producer()).isSameAs(reverse.producer());
      assertThat(elsewhere.producer()).isNotSameAs(upper.producer());
      assertThat(TaskEventLog.sharedProducers()).isEqualTo(before + 2);

      upper.close();
      assertThat(TaskEventLog.sharedProducers())
          .as("reverse still sends on it")
          .isEqualTo(before + 2);
      reverse.close();
      assertThat(TaskEventLog.sharedProducers()).isEqualTo(before + 1);
    } finally {
      upper.close();
      reverse.close();
      elsewhere.close();
    }
    assertThat(TaskEventLog.sharedProducers()).isEqualTo(before);
  }
}

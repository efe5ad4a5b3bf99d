package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TaskTopicsTest {

  @Test
  void namesDefaultToTheSpecsTopics() {
    TaskTopics topics = TaskTopics.fromEnv(Map.of());
    assertThat(topics.events().name()).isEqualTo("svc.task-events");
    assertThat(topics.updates().name()).isEqualTo("svc.task-updates");
    assertThat(topics.storeName()).isEqualTo("tasks");
  }

  @Test
  void environmentNamesEachTopicAndTheStore() {
    TaskTopics topics =
        TaskTopics.fromEnv(
            Map.of(
                "SVC_TASK_EVENTS_TOPIC",
                "e",
                "SVC_TASK_UPDATES_TOPIC",
                "u",
                "SVC_TASK_STORE",
                "s"));
    assertThat(topics.events().name()).isEqualTo("e");
    assertThat(topics.updates().name()).isEqualTo("u");
    assertThat(topics.storeName()).isEqualTo("s");
  }
}

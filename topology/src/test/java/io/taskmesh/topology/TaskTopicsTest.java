package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.servicekit.ConfigException;
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

  @Test
  void theNamespaceAloneGivesEveryGatewayNameItsOwn() {
    Map<String, String> teamA = Map.of("SVC_NAMESPACE", "team-a");
    TaskTopics topics = TaskTopics.fromEnv(teamA);
    assertThat(topics.events().name()).isEqualTo("svc.team-a.task-events");
    assertThat(topics.updates().name()).isEqualTo("svc.team-a.task-updates");
    assertThat(TaskTopics.applicationId(teamA)).isEqualTo("svc.team-a.gateway");
    // the names of the namespace 'default' stay those of a deployment made before namespaces
    assertThat(TaskTopics.applicationId(Map.of("SVC_NAMESPACE", "default")))
        .isEqualTo("svc-gateway");
    assertThat(TaskTopics.applicationId(Map.of())).isEqualTo("svc-gateway");
    assertThat(TaskTopics.fromEnv(Map.of("SVC_NAMESPACE", "default")).events().name())
        .isEqualTo("svc.task-events");
  }

  @Test
  void anExplicitNameWinsOverTheNamespace() {
    Map<String, String> env =
        Map.of(
            "SVC_NAMESPACE",
            "team-a",
            "SVC_TASK_EVENTS_TOPIC",
            "e",
            "SVC_STREAMS_APPLICATION_ID",
            "app");
    assertThat(TaskTopics.fromEnv(env).events().name()).isEqualTo("e");
    assertThat(TaskTopics.fromEnv(env).updates().name()).isEqualTo("svc.team-a.task-updates");
    assertThat(TaskTopics.applicationId(env)).isEqualTo("app");
  }

  @Test
  void aNamespaceKafkaCannotNameStopsStartUpNamingTheVariable() {
    for (String bad : new String[] {"team a", "team/a", "", "x".repeat(101)}) {
      assertThatThrownBy(() -> TaskTopics.fromEnv(Map.of("SVC_NAMESPACE", bad)))
          .as(bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("SVC_NAMESPACE");
    }
  }
}

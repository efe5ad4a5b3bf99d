package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.LocalKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster where clients may not create topics ({@code auto.create.topics.enable=false}, a broker
 * of this test's own): a flow whose actor has no topic yet (its sidecar never ran) gives the caller
 * a task id, and the task fails with the reason long before its deadline, instead of a 500 and a
 * task pending until the deadline. The gateway creates its own topics and no actor's.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DispatchFailureIT {
  @TempDir static Path dir;
  private static LocalKafka kafka;
  private static Gateway gateway;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    kafka =
        LocalKafka.startWith(dir.resolve("kafka"), Map.of("auto.create.topics.enable", "false"));
    Path flows = dir.resolve("flows.yaml");
    // a deadline far beyond the test's own limit: a failure inside the test cannot be the backstop
    Files.writeString(
        flows, "flows:\n  - {name: ghost, entrypoint: nobody, timeout: 3600, mcp: {}}\n");
    Map<String, String> env = TaskHttp.singleEnv("testing", dir, flows, "dispatch-failure");
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("SVC_NAMESPACE", "noauto");
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (kafka != null) {
      kafka.close();
    }
  }

  @Test
  void aFlowWhoseActorTopicIsMissingFailsItsTaskWithTheReason() throws Exception {
    String id = TaskHttp.callTool(base, "ghost");
    JsonNode task =
        await(
            base + "/tasks/" + id,
            n -> n.get("status").asText().equals("failed"),
            Duration.ofSeconds(60));
    assertThat(task.get("error").asText())
        .contains("dispatch failed", "svc-noauto-nobody", "does not exist");
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .as("the gateway creates no actor topic")
          .doesNotContain("svc-noauto-nobody");
    }
  }
}

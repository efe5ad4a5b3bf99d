package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A task that ends elsewhere while its handler runs (the gateway's {@code /mesh/{id}/active}
 * answers 410, as it does for a canceled task) frees its actor: the envelope behind it is handled
 * long before the canceled handler would have returned, and the canceled one goes nowhere.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class CanceledTaskIT {
  static TestMesh mesh;

  @BeforeAll
  static void start() {
    mesh = new TestMesh();
  }

  @AfterAll
  static void stop() {
    mesh.close();
  }

  @Test
  void aCanceledTasksHandlerNoLongerHoldsItsActor() {
    mesh.sidecar("slow", "testhandlers.slow");
    mesh.sink();
    // ten minutes: without the watch, the envelope behind it waits all of that
    mesh.send(mesh.envelope("long-one", Map.of("sleep", 600), "slow"));
    mesh.send(mesh.envelope("short-one", Map.of("sleep", 0), "slow"));
    Await.until(
        () ->
            mesh.gateway.calls("long-one", "progress").stream()
                .anyMatch(c -> c.body().path("status").asText().equals("processing")),
        Duration.ofSeconds(60),
        "the long handler running");

    mesh.gateway.ended.add("long-one");

    Await.until(
        () -> !mesh.gateway.calls("short-one", "final").isEmpty(),
        Duration.ofSeconds(120),
        "the envelope behind the canceled one handled");
    assertThat(mesh.gateway.calls("short-one", "final").get(0).body().path("status").asText())
        .isEqualTo("succeeded");
    // the canceled envelope was dropped: no final report, no completed progress
    assertThat(mesh.gateway.calls("long-one", "final")).isEmpty();
    assertThat(mesh.gateway.calls("long-one", "progress"))
        .noneMatch(c -> c.body().path("status").asText().equals("completed"));
  }
}

package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TaskViewMetricsTest {

  private static String exposition() {
    return new String(ServiceMetrics.scrape(ServiceMetrics.TEXT).body(), StandardCharsets.UTF_8);
  }

  @Test
  void loadedFlowsHaveTheirTaskCountersAtZeroForEveryFinalStatus() {
    TaskViewMetrics.flowsLoaded(List.of("zero-a", "zero-b"));

    String text = exposition();
    for (String flow : List.of("zero-a", "zero-b")) {
      assertThat(text).contains("taskmesh_tasks_started_total{flow=\"" + flow + "\"} 0.0");
      for (String status : List.of("succeeded", "failed", "canceled")) {
        assertThat(text)
            .contains(
                "taskmesh_tasks_finished_total{flow=\""
                    + flow
                    + "\",status=\""
                    + status
                    + "\"} 0.0");
        assertThat(text)
            .contains(
                "taskmesh_task_duration_seconds_count{flow=\""
                    + flow
                    + "\",status=\""
                    + status
                    + "\"} 0");
      }
    }
  }

  @Test
  void aChangedFlowListAddsTheNewFlowAndKeepsTheCountsOfTheOthers() {
    TaskViewMetrics.flowsLoaded(List.of("kept"));
    ServiceMetrics.registry().counter("taskmesh.tasks.started", "flow", "kept").increment();

    TaskViewMetrics.flowsLoaded(List.of("kept", "added"));

    String text = exposition();
    assertThat(text).contains("taskmesh_tasks_started_total{flow=\"kept\"} 1.0");
    assertThat(text).contains("taskmesh_tasks_started_total{flow=\"added\"} 0.0");
  }

  @Test
  void theFinalStatusesAreTheOnesATaskCanEndIn() {
    assertThat(TaskViewMetrics.FINAL_STATUSES).containsExactly("succeeded", "failed", "canceled");
  }
}

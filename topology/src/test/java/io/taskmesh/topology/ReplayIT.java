package io.taskmesh.topology;

import static io.taskmesh.schemas.TaskStatus.CANCELED;
import static io.taskmesh.schemas.TaskStatus.FAILED;
import static io.taskmesh.schemas.TaskStatus.PAUSED;
import static io.taskmesh.schemas.TaskStatus.PENDING;
import static io.taskmesh.schemas.TaskStatus.RUNNING;
import static io.taskmesh.schemas.TaskStatus.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.Times;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Reset + rebuild from the log gives the same view for every task (real broker). */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ReplayIT {
  private static final int TASKS = 300;

  /** Every 10th task (i % 10 == 1) that reaches progress (i % 7 != 0) has one fan-out child. */
  private static final int EXPECTED =
      TASKS
          + (int)
              java.util.stream.IntStream.range(0, TASKS)
                  .filter(i -> i % 10 == 1 && i % 7 != 0)
                  .count();

  @TempDir Path dir;

  @Test
  void theRebuiltViewEqualsTheViewBefore() throws Exception {
    String prefix = "replay-" + UUID.randomUUID().toString().substring(0, 8);
    TaskTopics topics = TaskTopics.named(prefix + ".events", prefix + ".updates", "tasks");
    TaskViewConfig config =
        new TaskViewConfig(
            LocalKafka.shared().bootstrapServers(),
            prefix + "-app",
            dir.resolve("state"),
            3,
            (short) 1);
    List<TaskState> before;
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      for (int i = 0; i < TASKS; i++) {
        writeTask(view, "t" + i, i);
      }
      before = awaitSettled(view);
      // a reader of the state alone (an MCP answer) gets it without the history's range read
      TaskState whole = view.get("t0").orElseThrow();
      assertThat(whole.history()).isNotEmpty();
      assertThat(view.getWithoutHistory("t0")).contains(whole.withHistory(List.of()));
      assertThatThrownBy(() -> TaskReplay.reset(config, Duration.ofSeconds(30)))
          .as("a running replica blocks the reset")
          .hasMessageContaining("stop every gateway");
    }
    assertThat(before).hasSize(EXPECTED);
    assertThat(before)
        .extracting(TaskState::status)
        .contains(PENDING, RUNNING, SUCCEEDED, FAILED, PAUSED, CANCELED);

    TaskReplay.reset(config, Duration.ofSeconds(60));
    assertThat(Files.exists(dir.resolve("state").resolve(config.applicationId()))).isFalse();
    try (Admin admin =
        Admin.create(
            java.util.Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()))) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .noneMatch(t -> t.startsWith(config.applicationId() + "-"));
    }
    TaskReplay.Result result = TaskReplay.rebuild(config, topics, Duration.ofSeconds(120));
    assertThat(result.tasks()).isEqualTo(before.size());
    assertThat(result.events()).isGreaterThanOrEqualTo(TASKS * 4L);

    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      List<TaskState> after = awaitCount(view, before.size());
      assertThat(after).hasSameSizeAs(before);
      for (int i = 0; i < before.size(); i++) {
        assertThat(after.get(i)).as("task %s", before.get(i).id()).isEqualTo(before.get(i));
      }
    }
  }

  /** A mix of every kind of event; duplicates re-sent; some deadlines already past. */
  private static void writeTask(TaskView view, String id, int i) {
    Route route = Route.start("a", List.of("b", "c"));
    String deadline = i % 7 == 0 ? Times.iso(Instant.now().minusSeconds(1)) : null;
    view.append(
        TaskEvent.created(
            id,
            new TaskEvent.Created(
                "flow",
                route,
                JsonNodeFactory.instance.objectNode().put("n", i),
                null,
                id,
                deadline,
                null)));
    if (i % 7 == 0) {
      return; // left to the deadline backstop
    }
    TaskEvent received =
        TaskEvent.progress(id, ProgressReport.routeForm(route, ActorState.RECEIVED, null));
    view.append(received);
    view.append(received); // re-delivery
    view.append(
        TaskEvent.progress(
            id,
            new ProgressReport(null, null, null, List.of("a", "b", "c"), 1, "processing", null)));
    view.append(
        TaskEvent.progress(
            id, ProgressReport.routeForm(route, ActorState.COMPLETED, null))); // stale
    if (i % 10 == 1) {
      view.append(
          TaskEvent.childCreated(
              id + "-1",
              new TaskEvent.Created(
                  null, new Route(List.of("a"), "b", List.of("c")), null, id, id, null, null)));
    }
    switch (i % 5) {
      case 0 ->
          view.append(
              TaskEvent.finished(
                  id,
                  FinalReport.succeeded(
                      id, JsonNodeFactory.instance.objectNode().put("r", i), "x-sink", null)));
      case 1 ->
          view.append(TaskEvent.finished(id, FinalReport.failed(id, "boom " + i, "x-sump", null)));
      case 2 -> view.append(TaskEvent.paused(id, FinalReport.paused(id, "b", null)));
      case 3 -> view.cancel(id, "test");
      default -> {} // still running
    }
    if (i % 5 == 0) {
      view.append(TaskEvent.finished(id, FinalReport.failed(id, "late", "x-sump", null)));
    }
  }

  private static List<TaskState> awaitSettled(TaskView view) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      List<TaskState> all = view.localTasks();
      boolean settled =
          all.size() == EXPECTED
              && all.stream()
                  .filter(s -> s.deadlineAt() != null)
                  .allMatch(s -> s.status() == FAILED)
              && all.stream()
                  .filter(
                      s ->
                          s.id().matches("t\\d+")
                              && Integer.parseInt(s.id().substring(1)) % 5 == 0
                              && Integer.parseInt(s.id().substring(1)) % 7 != 0)
                  .allMatch(s -> s.status() == SUCCEEDED);
      if (settled) {
        return all;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("view did not settle: " + all.size() + " tasks");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static List<TaskState> awaitCount(TaskView view, int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        List<TaskState> all = view.localTasks();
        if (all.size() == n) {
          return all;
        }
      } catch (ViewUnavailableException restoring) {
        // still restoring from the changelog
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("restored view never reached " + n + " tasks");
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }
}

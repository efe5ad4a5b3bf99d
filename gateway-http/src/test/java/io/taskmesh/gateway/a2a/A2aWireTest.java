package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The A2A objects exactly as they go on the wire: field names, order, which nulls are written
 * (metadata's) and which are omitted (everything else). The expected strings are what the gateway
 * wrote when these objects were built as JSON trees.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class A2aWireTest {
  private static final TaskUpdate FIRST =
      TaskUpdate.of("t1", 1, TaskStatus.PENDING, "Task created", "2026-01-01T00:00:00Z");
  private static final TaskUpdate DONE =
      TaskUpdate.of("t1", 3, TaskStatus.SUCCEEDED, "done", "2026-01-01T00:00:02Z")
          .withResult(json("[1]"));
  private static final TaskUpdate FAILED =
      TaskUpdate.of("t1", 4, TaskStatus.FAILED, "m", "2026").withError("boom");

  private final TaskState created =
      TaskState.created(
          "t1",
          new TaskEvent.Created(
              "echo",
              new Route(List.of(), "a", List.of("b")),
              json("{\"x\":1}"),
              null,
              "ctx",
              null,
              "own"),
          FIRST,
          "e1");
  private final TaskState completed =
      created
          .withHistory(List.of(FIRST, TaskUpdate.of("t1", 2, TaskStatus.RUNNING, null, "t"), DONE))
          .withUpdate(DONE);
  private final TaskState announced =
      TaskState.announced("t2", "t2", null, TaskStatus.PENDING, null, null);

  private static JsonNode json(String s) {
    return Json.read(s, JsonNode.class);
  }

  @Test
  void createdTaskWithHistory() throws Exception {
    assertThat(Json.write(A2aTasks.task(created, null)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"ctx\",\"status\":{\"state\":\"submitted\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-1\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"Task created\"}]},\"timestamp\":\"2026-01-01T00:00:00Z\"},\"history\":[{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"t1-input\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"data\",\"data\":{\"x\":1}}]},{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-1\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"Task created\"}]}],\"metadata\":{\"flow\":\"echo\",\"status\":\"pending\",\"progress_percent\":0.0,\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}}");
  }

  @Test
  void completedTaskWithResultArtifact() throws Exception {
    assertThat(Json.write(A2aTasks.task(completed, null)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"ctx\",\"status\":{\"state\":\"completed\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-3\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"[1]\"}]},\"timestamp\":\"2026-01-01T00:00:02Z\"},\"artifacts\":[{\"artifactId\":\"result\",\"name\":\"result\",\"parts\":[{\"kind\":\"data\",\"data\":{\"result\":[1]}},{\"kind\":\"text\",\"text\":\"[1]\"}]}],\"history\":[{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"t1-input\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"data\",\"data\":{\"x\":1}}]},{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-1\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"Task created\"}]},{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-3\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"done\"}]}],\"metadata\":{\"flow\":\"echo\",\"status\":\"succeeded\",\"progress_percent\":0.0,\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:02Z\"}}");
  }

  @Test
  void completedTaskLastHistoryEntry() throws Exception {
    assertThat(Json.write(A2aTasks.task(completed, 1)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"ctx\",\"status\":{\"state\":\"completed\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-3\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"[1]\"}]},\"timestamp\":\"2026-01-01T00:00:02Z\"},\"artifacts\":[{\"artifactId\":\"result\",\"name\":\"result\",\"parts\":[{\"kind\":\"data\",\"data\":{\"result\":[1]}},{\"kind\":\"text\",\"text\":\"[1]\"}]}],\"history\":[{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-3\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"done\"}]}],\"metadata\":{\"flow\":\"echo\",\"status\":\"succeeded\",\"progress_percent\":0.0,\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:02Z\"}}");
  }

  @Test
  void completedTaskWithoutHistory() throws Exception {
    assertThat(Json.write(A2aTasks.task(completed, 0)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"ctx\",\"status\":{\"state\":\"completed\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-3\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"[1]\"}]},\"timestamp\":\"2026-01-01T00:00:02Z\"},\"artifacts\":[{\"artifactId\":\"result\",\"name\":\"result\",\"parts\":[{\"kind\":\"data\",\"data\":{\"result\":[1]}},{\"kind\":\"text\",\"text\":\"[1]\"}]}],\"metadata\":{\"flow\":\"echo\",\"status\":\"succeeded\",\"progress_percent\":0.0,\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:02Z\"}}");
  }

  @Test
  void announcedTaskWritesNullMetadata() throws Exception {
    assertThat(Json.write(A2aTasks.task(announced, null)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t2\",\"contextId\":\"t2\",\"status\":{\"state\":\"submitted\"},\"history\":[],\"metadata\":{\"flow\":null,\"status\":\"pending\",\"progress_percent\":0.0,\"created_at\":null,\"updated_at\":null}}");
  }

  @Test
  void failedTaskSaysItsError() throws Exception {
    assertThat(Json.write(A2aTasks.task(created.withUpdate(FAILED), 0)))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t1\",\"contextId\":\"ctx\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-4\",\"taskId\":\"t1\",\"contextId\":\"ctx\",\"parts\":[{\"kind\":\"text\",\"text\":\"boom\"}]},\"timestamp\":\"2026\"},\"metadata\":{\"flow\":\"echo\",\"status\":\"failed\",\"progress_percent\":0.0,\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026\"}}");
  }

  @Test
  void submittedTask() throws Exception {
    assertThat(Json.write(A2aTasks.submitted("t3", "2026-01-01T00:00:00Z")))
        .isEqualTo(
            "{\"kind\":\"task\",\"id\":\"t3\",\"contextId\":\"t3\",\"status\":{\"state\":\"submitted\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t3-1\",\"taskId\":\"t3\",\"contextId\":\"t3\",\"parts\":[{\"kind\":\"text\",\"text\":\"Task created\"}]},\"timestamp\":\"2026-01-01T00:00:00Z\"}}");
  }

  @Test
  void finalFailedStatusEvent() throws Exception {
    assertThat(Json.write(A2aTasks.statusEvent("t1", "c", FAILED, true)))
        .isEqualTo(
            "{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c\",\"status\":{\"state\":\"failed\",\"message\":{\"kind\":\"message\",\"role\":\"agent\",\"messageId\":\"t1-4\",\"taskId\":\"t1\",\"contextId\":\"c\",\"parts\":[{\"kind\":\"text\",\"text\":\"boom\"}]},\"timestamp\":\"2026\"},\"final\":true}");
  }

  @Test
  void workingStatusEventWithoutMessage() throws Exception {
    assertThat(
            Json.write(
                A2aTasks.statusEvent(
                    "t1", "c", TaskUpdate.of("t1", 2, TaskStatus.RUNNING, null, null), false)))
        .isEqualTo(
            "{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c\",\"status\":{\"state\":\"working\"},\"final\":false}");
  }

  @Test
  void firstFlyChunkAsText() throws Exception {
    assertThat(
            Json.write(
                A2aTasks.artifactEvent(
                    "t1", "c", A2aTasks.flyPart(json("{\"token\":\"x\"}")), false, false)))
        .isEqualTo(
            "{\"kind\":\"artifact-update\",\"taskId\":\"t1\",\"contextId\":\"c\",\"artifact\":{\"artifactId\":\"fly-stream\",\"name\":\"fly-stream\",\"parts\":[{\"kind\":\"text\",\"text\":\"x\"}]},\"append\":false,\"lastChunk\":false}");
  }

  @Test
  void lastChunkWrapsAScalarResult() throws Exception {
    assertThat(
            Json.write(
                A2aTasks.artifactEvent("t1", "c", A2aTasks.resultPart(json("3")), true, true)))
        .isEqualTo(
            "{\"kind\":\"artifact-update\",\"taskId\":\"t1\",\"contextId\":\"c\",\"artifact\":{\"artifactId\":\"fly-stream\",\"name\":\"fly-stream\",\"parts\":[{\"kind\":\"data\",\"data\":{\"result\":3}}]},\"append\":true,\"lastChunk\":true}");
  }

  @Test
  void flyDataKeepsItsNulls() throws Exception {
    assertThat(
            Json.write(
                A2aTasks.artifactEvent(
                    "t1", "c", A2aTasks.flyPart(json("{\"k\":null}")), true, false)))
        .isEqualTo(
            "{\"kind\":\"artifact-update\",\"taskId\":\"t1\",\"contextId\":\"c\",\"artifact\":{\"artifactId\":\"fly-stream\",\"name\":\"fly-stream\",\"parts\":[{\"kind\":\"data\",\"data\":{\"k\":null}}]},\"append\":true,\"lastChunk\":false}");
  }

  @Test
  void rpcResultsWriteANullResult() {
    assertThat(Json.write(JsonRpc.result(json("1"), null)))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");
    assertThat(Json.write(JsonRpc.result(json("1"), NullNode.getInstance())))
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");
  }

  @Test
  void listPageAndPushConfigKeepTheirFieldOrder() {
    assertThat(Json.write(new TaskReadMethods.TaskPage(List.of(), "", 50, 0)))
        .isEqualTo("{\"tasks\":[],\"nextPageToken\":\"\",\"pageSize\":50,\"totalSize\":0}");
    assertThat(
            Json.write(
                new PushConfigMethods.TaskPushConfig(
                    "t", (ObjectNode) json("{\"id\":\"c\",\"url\":\"http://h/\"}"))))
        .isEqualTo(
            "{\"taskId\":\"t\",\"pushNotificationConfig\":{\"id\":\"c\",\"url\":\"http://h/\"}}");
  }
}

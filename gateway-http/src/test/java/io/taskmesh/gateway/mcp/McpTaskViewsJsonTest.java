package io.taskmesh.gateway.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exact JSON of the task views both MCP revisions answer with, so that how they are built can
 * change while what a client reads does not (null and absent members differ here).
 */
class McpTaskViewsJsonTest {
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T00:00:05Z";

  static TaskState state(
      TaskStatus status, String message, JsonNode result, String error, ErrorDetails details) {
    return new TaskState(
        "t-1",
        null,
        "c-1",
        "echo",
        "alice",
        status,
        message,
        result,
        error,
        details,
        status == TaskStatus.PAUSED ? "Your name?" : null,
        null,
        null,
        null,
        40.0,
        1,
        "greeter",
        null,
        1,
        2,
        T0,
        T1,
        null,
        3,
        List.of(),
        List.of());
  }

  /** What a client reads: the value written by the project's mapper and parsed again. */
  static JsonNode wire(Object value) {
    try {
      return Json.MAPPER.readTree(Json.write(value));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static JsonNode json(String text) {
    return exact(text.replace('\'', '"'));
  }

  /** JSON as written, its nulls kept (the mapper would drop them from a map). */
  static JsonNode exact(String text) {
    try {
      return Json.MAPPER.readTree(text);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static final ErrorDetails RAISED =
      new ErrorDetails("greeter", "ValueError", "HandlerError", "tb");

  @Test
  void aRunningTaskIsAWorkingTaskWithANullTtl() {
    assertThat(wire(McpTaskViews.task(state(TaskStatus.RUNNING, "half way", null, null, null))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"working\",\"statusMessage\":\"half way\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttl\":null,\"pollInterval\":1000}"));
  }

  @Test
  void aPausedTaskTellsTheClientToCallTasksResult() {
    assertThat(wire(McpTaskViews.task(state(TaskStatus.PAUSED, null, null, null, null))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"input_required\",\"statusMessage\":\"paused: call tasks/result, which asks for the input with elicitation/create\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttl\":null,\"pollInterval\":1000}"));
  }

  @Test
  void aSucceededTaskIsAToolResultWithTheFlowResultAndTheRelatedTask() {
    JsonNode result = json("{'greeting':'hi'}");
    assertThat(wire(McpTaskViews.toolResult(state(TaskStatus.SUCCEEDED, null, result, null, null))))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"greeting\\\":\\\"hi\\\"}\"}],\"structuredContent\":{\"task_id\":\"t-1\",\"message\":\"Task started\",\"status_url\":\"/tasks/t-1\",\"stream_url\":\"/stream/t-1\",\"status\":\"succeeded\",\"result\":{\"greeting\":\"hi\"}},\"isError\":false,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aFailedTaskIsAToolErrorNamingTheActor() {
    assertThat(wire(McpTaskViews.toolResult(state(TaskStatus.FAILED, null, null, "boom", RAISED))))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"boom (in actor greeter)\\n\\ntb\"}],\"structuredContent\":{\"task_id\":\"t-1\",\"message\":\"Task started\",\"status_url\":\"/tasks/t-1\",\"stream_url\":\"/stream/t-1\",\"status\":\"failed\"},\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aPlainCallAnswersAScalarResultUnderResult() {
    assertThat(wire(McpTaskViews.answer(state(TaskStatus.SUCCEEDED, null, json("42"), null, null))))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"42\"}],\"structuredContent\":{\"result\":42},\"isError\":false,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aPlainCallAnswersANullResultAsANullUnderResult() {
    assertThat(wire(McpTaskViews.answer(state(TaskStatus.SUCCEEDED, null, null, null, null))))
        .isEqualTo(
            json(
                "{'content':[{'type':'text','text':'null'}],'structuredContent':{'result':null},"
                    + "'isError':false,'_meta':{'io.modelcontextprotocol/related-task':{'taskId':'t-1'}}}"));
  }

  @Test
  void aPlainCallAnswersTheContentAHandlerChose() {
    JsonNode result =
        json("{'mcp':{'content':[{'type':'image','data':'AA==','mimeType':'image/png'}]},'n':1}");
    assertThat(wire(McpTaskViews.answer(state(TaskStatus.SUCCEEDED, null, result, null, null))))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"image\",\"data\":\"AA==\",\"mimeType\":\"image/png\"}],\"structuredContent\":{\"n\":1},\"isError\":false,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aPlainCallOfACancelledTaskIsAToolErrorWithoutStructuredContent() {
    assertThat(wire(McpTaskViews.answer(state(TaskStatus.CANCELED, "stop", null, null, null))))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"the task was cancelled: stop\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aTaskThatOutlivesTheWaitIsAnsweredWithItsHandle() {
    assertThat(wire(McpTaskViews.stillRunning("t-1", Duration.ofSeconds(30), false)))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"The task t-1 is still running after 30 s. Read its result later at /tasks/t-1, follow it at /stream/t-1 or read the MCP resource taskmesh://tasks/t-1. {\\\"task_id\\\":\\\"t-1\\\",\\\"message\\\":\\\"Task started\\\",\\\"status_url\\\":\\\"/tasks/t-1\\\",\\\"stream_url\\\":\\\"/stream/t-1\\\"}\"}],\"structuredContent\":{\"task_id\":\"t-1\",\"message\":\"Task started\",\"status_url\":\"/tasks/t-1\",\"stream_url\":\"/stream/t-1\"},\"isError\":false,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aTaskThatOutlivesTheWaitOfADeclaredSchemaIsAToolError() {
    assertThat(wire(McpTaskViews.stillRunning("t-1", Duration.ofSeconds(30), true)))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"The task t-1 is still running after 30 s. Read its result later at /tasks/t-1, follow it at /stream/t-1 or read the MCP resource taskmesh://tasks/t-1. {\\\"task_id\\\":\\\"t-1\\\",\\\"message\\\":\\\"Task started\\\",\\\"status_url\\\":\\\"/tasks/t-1\\\",\\\"stream_url\\\":\\\"/stream/t-1\\\"}\"}],\"isError\":true,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void aPausedTaskAClientCannotBeAskedAboutSaysHowToAnswer() {
    assertThat(wire(McpTaskViews.asking(state(TaskStatus.PAUSED, null, null, null, null), false)))
        .isEqualTo(
            exact(
                "{\"content\":[{\"type\":\"text\",\"text\":\"The task t-1 is waiting for input: Your name? Answer it with an A2A message naming the task id, or `./taskmesh tasks answer t-1 TEXT`; then read its result at /tasks/t-1.\"}],\"structuredContent\":{\"task_id\":\"t-1\",\"message\":\"Task started\",\"status_url\":\"/tasks/t-1\",\"stream_url\":\"/stream/t-1\"},\"isError\":false,\"_meta\":{\"io.modelcontextprotocol/related-task\":{\"taskId\":\"t-1\"}}}"));
  }

  @Test
  void anInputRequiredResultCarriesTheRequestsAndTheState() {
    assertThat(
            wire(
                McpTaskViews.inputRequired(
                    java.util.Map.of("k", json("{'method':'elicitation/create'}")), "signed")))
        .isEqualTo(
            exact(
                "{\"resultType\":\"input_required\",\"inputRequests\":{\"k\":{\"method\":\"elicitation/create\"}},\"requestState\":\"signed\"}"));
  }

  @Test
  void aCreatedTaskIsAFlatCreateTaskResultWithANullTtl() {
    JsonNode created = wire(McpTaskExtension.created("t-1"));
    assertThat(created.path("createdAt").asText())
        .isEqualTo(created.path("lastUpdatedAt").asText());
    ((com.fasterxml.jackson.databind.node.ObjectNode) created)
        .remove(List.of("createdAt", "lastUpdatedAt"));
    assertThat(created)
        .isEqualTo(
            exact(
                "{\"resultType\":\"task\",\"taskId\":\"t-1\",\"status\":\"working\",\"statusMessage\":\"Task started\",\"ttlMs\":null,\"pollIntervalMs\":1000}"));
  }

  @Test
  void aCompletedExtensionTaskInlinesItsResultWithoutTheRelatedTask() {
    JsonNode result = json("{'greeting':'hi'}");
    assertThat(
            wire(McpTaskExtension.detailed(state(TaskStatus.SUCCEEDED, null, result, null, null))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"completed\",\"statusMessage\":\"100% done, actor greeter (#1)\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttlMs\":null,\"pollIntervalMs\":1000,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"greeting\\\":\\\"hi\\\"}\"}],\"structuredContent\":{\"task_id\":\"t-1\",\"message\":\"Task started\",\"status_url\":\"/tasks/t-1\",\"stream_url\":\"/stream/t-1\",\"status\":\"succeeded\",\"result\":{\"greeting\":\"hi\"}},\"isError\":false,\"resultType\":\"complete\"}}"));
  }

  @Test
  void aTaskWhoseRuntimeCrashedIsAFailedExtensionTaskWithAnError() {
    ErrorDetails crashed = new ErrorDetails("greeter", null, "RuntimeCrashed", null);
    assertThat(
            wire(McpTaskExtension.detailed(state(TaskStatus.FAILED, null, null, "died", crashed))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"failed\",\"statusMessage\":\"40% done, actor greeter (#1): died\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttlMs\":null,\"pollIntervalMs\":1000,\"error\":{\"code\":-32603,\"message\":\"died (in actor greeter)\"}}"));
  }

  @Test
  void aRunningExtensionTaskSaysHowFarItGot() {
    assertThat(wire(McpTaskExtension.detailed(state(TaskStatus.RUNNING, "busy", null, null, null))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"working\",\"statusMessage\":\"40% done, actor greeter (#1): busy\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttlMs\":null,\"pollIntervalMs\":1000}"));
  }

  @Test
  void aPausedExtensionTaskListsItsInputRequests() {
    assertThat(wire(McpTaskExtension.detailed(state(TaskStatus.PAUSED, null, null, null, null))))
        .isEqualTo(
            exact(
                "{\"taskId\":\"t-1\",\"status\":\"input_required\",\"statusMessage\":\"40% done, actor greeter (#1) (answer the input request with tasks/update)\",\"createdAt\":\"2026-01-01T00:00:00Z\",\"lastUpdatedAt\":\"2026-01-01T00:00:05Z\",\"ttlMs\":null,\"pollIntervalMs\":1000,\"inputRequests\":{\"taskmesh-input-3\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"Your name?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"the input the task continues with\"}},\"required\":[\"text\"]}}}}}"));
  }
}

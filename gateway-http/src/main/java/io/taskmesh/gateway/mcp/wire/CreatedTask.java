package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * The session era's answer to a task-augmented call ({@code CreateTaskResult} of 2025-11-25): the
 * task under {@code task}, and under {@code _meta} the text a model reads at once.
 */
public record CreatedTask(McpTask task, @JsonProperty("_meta") Map<String, Object> meta) {
  public static final String IMMEDIATE_RESPONSE =
      "io.modelcontextprotocol/model-immediate-response";

  public static CreatedTask started(String taskId, String now, int pollInterval, String text) {
    // ttl null: kept as long as the task store keeps the task
    return new CreatedTask(
        new McpTask(taskId, "working", "Task started", now, now, null, pollInterval),
        Map.of(IMMEDIATE_RESPONSE, text));
  }
}

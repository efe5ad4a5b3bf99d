package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The 2026-07-28 tasks extension's answer to a call that became a task: flat, the task's members
 * beside {@code resultType: task}, which the SDK's result types have no room for.
 *
 * @param ttlMs always written, null meaning kept as long as the task store keeps the task
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record CreateTaskResult(
    String resultType,
    String taskId,
    String status,
    String statusMessage,
    String createdAt,
    String lastUpdatedAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) Long ttlMs,
    int pollIntervalMs) {

  /** A task started at {@code now} that is working. */
  public static CreateTaskResult started(String taskId, String now, int pollIntervalMs) {
    return new CreateTaskResult(
        "task", taskId, "working", "Task started", now, now, null, pollIntervalMs);
  }
}

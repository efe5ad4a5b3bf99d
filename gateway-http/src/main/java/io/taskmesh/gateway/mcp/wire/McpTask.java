package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A {@code Task} of the 2025-11-25 revision ({@code tasks/get}, {@code tasks/list}, the status
 * notification). The SDK has no task types, so this shape is ours.
 *
 * @param statusMessage null: absent
 * @param createdAt always written (null when the task's time is not known yet), like the update
 * @param ttl always written, null meaning kept as long as the task store keeps the task
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record McpTask(
    String taskId,
    String status,
    String statusMessage,
    @JsonInclude(JsonInclude.Include.ALWAYS) String createdAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) String lastUpdatedAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) Long ttl,
    int pollInterval) {}

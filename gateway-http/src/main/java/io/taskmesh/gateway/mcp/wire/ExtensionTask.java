package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A task of the 2026-07-28 tasks extension ({@code tasks/get}, {@code notifications/tasks}): what
 * its status implies is inlined, the result when completed, the open input requests when it waits,
 * the error when it failed; the other two are then absent.
 *
 * @param createdAt always written (null when the task's time is not known yet), like the update
 * @param ttlMs always written, null meaning kept as long as the task store keeps the task
 * @param meta written as {@code _meta} (a listen's stamp on {@code notifications/tasks}); null:
 *     absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ExtensionTask(
    String taskId,
    String status,
    String statusMessage,
    @JsonInclude(JsonInclude.Include.ALWAYS) String createdAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) String lastUpdatedAt,
    @JsonInclude(JsonInclude.Include.ALWAYS) Long ttlMs,
    int pollIntervalMs,
    ToolResult result,
    Map<String, JsonNode> inputRequests,
    JsonRpcErrorObject error,
    @JsonProperty("_meta") Map<String, Object> meta) {

  /** The same task with {@code _meta} set. */
  public ExtensionTask withMeta(Map<String, Object> meta) {
    return new ExtensionTask(
        taskId,
        status,
        statusMessage,
        createdAt,
        lastUpdatedAt,
        ttlMs,
        pollIntervalMs,
        result,
        inputRequests,
        error,
        meta);
  }
}

package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A tool of {@code tools/list}. Ours rather than the SDK's {@code Tool}, which has no {@code
 * execution} member to say whether the tool may, must or must not run as a task; the schemas are
 * the flow's own JSON, passed through as written.
 */
public record ToolDefinition(
    String name,
    String description,
    JsonNode inputSchema,
    JsonNode outputSchema,
    Map<String, String> execution) {

  /** {@code execution.taskSupport}: {@code optional}, {@code required} or {@code forbidden}. */
  public static Map<String, String> taskSupport(String support) {
    return Map.of("taskSupport", support);
  }
}

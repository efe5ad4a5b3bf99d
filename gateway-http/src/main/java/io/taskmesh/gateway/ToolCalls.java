package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.List;
import java.util.Map;

/** A tool call, whichever door it came in by ({@code /tools/call}, MCP Streamable HTTP, MCP SSE). */
public final class ToolCalls {
  private final FlowRegistry flows;
  private final TaskLauncher launcher;
  private final ToolArguments arguments = new ToolArguments();

  public ToolCalls(FlowRegistry flows, TaskLauncher launcher) {
    this.flows = flows;
    this.launcher = launcher;
  }

  /** The tool is not (or no longer) registered. */
  public static final class UnknownTool extends RuntimeException {
    UnknownTool(String name) {
      super("tool not found: " + name);
    }
  }

  /**
   * Validates and starts the task; returns its id.
   *
   * @throws UnknownTool no such tool
   * @throws ToolArguments.InvalidArguments arguments do not match {@code mcp.inputSchema}
   */
  public String start(String toolName, JsonNode input, String owner) {
    FlowConfig flow = flows.tool(toolName).orElseThrow(() -> new UnknownTool(toolName));
    JsonNode args = input == null || input.isNull() ? JsonNodeFactory.instance.objectNode() : input;
    arguments.check(flow, args);
    return launcher.start(flow, args, owner);
  }

  /** The text of the spec's CallToolResult for a started task. */
  public static String resultText(String taskId) {
    return Json.write(Map.of(
        "task_id", taskId,
        "message", "Task started",
        "status_url", "/mesh/" + taskId,
        "stream_url", "/mesh/" + taskId + "/stream"));
  }

  static Map<String, Object> callToolResult(String taskId) {
    return Map.of("content", List.of(Map.of("type", "text", "text", resultText(taskId))), "isError", false);
  }

  public FlowRegistry flows() {
    return flows;
  }
}

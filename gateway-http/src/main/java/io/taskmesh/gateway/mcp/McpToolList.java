package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.wire.ToolDefinition;
import io.taskmesh.gateway.mcp.wire.ToolList;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The MCP tools: one per flow with an {@code mcp} section, rebuilt when the flow config changes.
 */
final class McpToolList {
  private volatile ToolList tools = new ToolList(List.of());

  /** Rebuilds the list; true when it differs from the one before (a list_changed to send). */
  synchronized boolean update(Map<String, FlowConfig> flows) {
    ToolList next =
        new ToolList(
            flows.values().stream()
                .filter(FlowConfig::isTool)
                .sorted(Comparator.comparing(FlowConfig::name))
                .map(McpToolList::tool)
                .toList());
    boolean changed = !next.equals(tools);
    tools = next;
    return changed;
  }

  /** The {@code tools/list} answer. */
  ToolList tools() {
    return tools;
  }

  static ToolDefinition tool(FlowConfig flow) {
    JsonNode schema = flow.mcp() == null ? null : flow.mcp().get("inputSchema");
    // a plain call answers the flow's result: the flow's own schema of it, else any object
    JsonNode output = flow.mcp() == null ? null : flow.mcp().get("outputSchema");
    // every flow is a long-running task: a client may follow it as an MCP task or wait for its
    // result, unless the flow says otherwise
    return new ToolDefinition(
        flow.name(),
        flow.description() == null ? "Runs the flow " + flow.name() : flow.description(),
        schema != null && schema.isObject() ? schema : ANY_OBJECT,
        output != null && output.isObject() ? output : ANY_OBJECT,
        ToolDefinition.taskSupport(TaskSupport.of(flow).wire()));
  }

  private static final JsonNode ANY_OBJECT = Json.MAPPER.valueToTree(Map.of("type", "object"));
}

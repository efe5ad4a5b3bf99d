package io.taskmesh.gateway.mcp.wire;

import java.util.List;

/**
 * The {@code tools/list} answer: every tool in one page. Ours because its tools are our {@link
 * ToolDefinition}s, which the SDK's {@code ListToolsResult} cannot hold.
 */
public record ToolList(List<ToolDefinition> tools) {
  public ToolList {
    tools = List.copyOf(tools);
  }
}

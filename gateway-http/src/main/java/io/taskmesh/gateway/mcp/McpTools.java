package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.modelcontextprotocol.server.McpServerFeatures.SyncToolSpecification;
import io.modelcontextprotocol.server.McpSyncServer;
import io.modelcontextprotocol.spec.McpSchema;
import io.opentelemetry.context.Scope;
import io.taskmesh.gateway.DispatchException;
import io.taskmesh.gateway.ToolArguments;
import io.taskmesh.gateway.ToolCalls;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import io.taskmesh.topology.EventLogException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the tools of every MCP server (one per transport) equal to the flows that have an {@code
 * mcp} section: adding/removing a tool on a server built with {@code tools(true)} sends {@code
 * notifications/tools/list_changed} to its sessions.
 */
final class McpTools {
  private static final Logger LOG = LoggerFactory.getLogger(McpTools.class);
  private static final TypeReference<Map<String, Object>> MAP = new TypeReference<>() {};

  private final ToolCalls calls;
  private final List<McpSyncServer> servers = new CopyOnWriteArrayList<>();
  private final Set<String> registered = new HashSet<>();
  private Map<String, FlowConfig> current = Map.of();

  McpTools(ToolCalls calls) {
    this.calls = calls;
  }

  synchronized void add(McpSyncServer server) {
    servers.add(server);
    current.values().stream().filter(FlowConfig::isTool).forEach(f -> server.addTool(spec(f)));
  }

  /** Applies a new flow config to every server. */
  synchronized void sync(Map<String, FlowConfig> flows) {
    Map<String, FlowConfig> next = flows;
    for (String name : Set.copyOf(registered)) {
      FlowConfig now = next.get(name);
      if (now == null || !now.isTool() || !now.equals(current.get(name))) {
        servers.forEach(s -> removeQuietly(s, name));
        registered.remove(name);
      }
    }
    for (FlowConfig f : next.values()) {
      if (f.isTool() && !registered.contains(f.name())) {
        servers.forEach(s -> s.addTool(spec(f)));
        registered.add(f.name());
      }
    }
    current = Map.copyOf(next);
  }

  private static void removeQuietly(McpSyncServer server, String name) {
    try {
      server.removeTool(name);
    } catch (RuntimeException e) {
      LOG.debug("tool {} was not on a server: {}", name, e.getMessage());
    }
  }

  private SyncToolSpecification spec(FlowConfig flow) {
    JsonNode schema = flow.mcp().get("inputSchema");
    Map<String, Object> inputSchema =
        schema != null && schema.isObject()
            ? Json.MAPPER.convertValue(schema, MAP)
            : Map.of("type", "object");
    McpSchema.Tool tool =
        McpSchema.Tool.builder()
            .name(flow.name())
            .description(
                flow.description() == null ? "Runs the flow " + flow.name() : flow.description())
            .inputSchema(inputSchema)
            .outputSchema(ToolCalls.RESULT_SCHEMA)
            .build();
    return SyncToolSpecification.builder()
        .tool(tool)
        .callHandler(
            (exchange, request) -> {
              String owner = McpPrincipal.of(exchange.transportContext());
              try (Scope trace = McpPrincipal.trace(exchange.transportContext())) {
                String id =
                    calls.start(
                        request.name(),
                        Json.MAPPER.valueToTree(
                            request.arguments() == null ? Map.of() : request.arguments()),
                        owner);
                // the spec's text for clients that read content, the same object for those that
                // read structuredContent
                return McpSchema.CallToolResult.builder()
                    .addTextContent(ToolCalls.resultText(id))
                    .structuredContent(ToolCalls.result(id))
                    .isError(false)
                    .build();
              } catch (ToolCalls.UnknownTool
                  | ToolArguments.InvalidArguments
                  | ToolCalls.ArgumentsTooLarge e) {
                // argument problems are tool execution errors (MCP tools, "Error Handling"): the
                // model can correct them
                return error(e.getMessage());
              } catch (EventLogException | DispatchException e) {
                LOG.error("tool {} could not start a task: {}", request.name(), e.getMessage());
                return error("the task could not be started: task log unavailable");
              }
            })
        .build();
  }

  private static McpSchema.CallToolResult error(String message) {
    return McpSchema.CallToolResult.builder().addTextContent(message).isError(true).build();
  }
}

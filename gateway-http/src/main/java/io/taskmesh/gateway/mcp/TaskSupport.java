package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.FlowConfig;
import java.util.Locale;

/**
 * Whether a tool's call becomes an MCP task (the tool's {@code execution.taskSupport}), from its
 * flow's {@code mcp.taskSupport}. Every flow is a task of ours, so the default is {@code optional}:
 * a client that declared the tasks extension gets the task back, any other waits for the result. A
 * flow says {@code forbidden} when its answer must come in the call (never a task), {@code
 * required} when it runs too long to wait for (a client without the extension is refused -32021).
 */
enum TaskSupport {
  FORBIDDEN,
  OPTIONAL,
  REQUIRED;

  static TaskSupport of(FlowConfig flow) {
    JsonNode declared = flow == null || flow.mcp() == null ? null : flow.mcp().get("taskSupport");
    if (declared == null || !declared.isTextual()) {
      return OPTIONAL;
    }
    return switch (declared.asText().toLowerCase(Locale.ROOT)) {
      case "forbidden" -> FORBIDDEN;
      case "required" -> REQUIRED;
      default -> OPTIONAL;
    };
  }

  /**
   * Whether the flow asks its questions before it becomes a task ({@code mcp.inputBeforeTask:
   * true}): a call that may take a task is answered {@code input_required} while the flow waits for
   * input, and the task comes back with the round that answers it (the tasks extension's MRTR
   * composition). A flow that finishes without asking answers as a plain call does.
   */
  static boolean asksBeforeTask(FlowConfig flow) {
    return flow != null
        && flow.mcp() != null
        && flow.mcp().path("inputBeforeTask").asBoolean(false);
  }

  String wire() {
    return name().toLowerCase(Locale.ROOT);
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.ToolCalls;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import java.util.Map;

/** Our tasks in MCP's shapes: the {@code Task} object and the tool result of a finished task. */
final class McpTaskViews {
  /** How often a client should poll {@code tasks/get}, in milliseconds. */
  static final int POLL_INTERVAL_MS = 1000;

  static final String RELATED_TASK = "io.modelcontextprotocol/related-task";

  private McpTaskViews() {}

  /**
   * MCP's five statuses from ours: pending/running work, paused and auth_required wait for the
   * requestor, the three outcomes are terminal. A status this version does not know is reported as
   * still working, since it has not reached an outcome we can name.
   */
  static String status(TaskStatus status) {
    if (status == null) {
      return "working";
    }
    return switch (status) {
      case SUCCEEDED -> "completed";
      case FAILED -> "failed";
      case CANCELED -> "cancelled";
      case PAUSED, AUTH_REQUIRED -> "input_required";
      default -> "working";
    };
  }

  static ObjectNode task(TaskState s) {
    ObjectNode t = Json.MAPPER.createObjectNode();
    t.put("taskId", s.id());
    t.put("status", status(s.status()));
    String message = s.error() != null ? s.error() : s.message();
    if (s.status() == TaskStatus.PAUSED) {
      message =
          (message == null ? "paused" : message)
              + ": call tasks/result, which asks for the input with elicitation/create";
    }
    if (message != null) {
      t.put("statusMessage", message);
    }
    t.put("createdAt", s.createdAt());
    t.put("lastUpdatedAt", s.updatedAt() == null ? s.createdAt() : s.updatedAt());
    t.putNull("ttl"); // tasks are kept as long as the task store keeps them
    t.put("pollInterval", POLL_INTERVAL_MS);
    return t;
  }

  /**
   * The {@code CallToolResult} a finished task's {@code tools/call} stands for: the flow's result
   * (or error) as text, and in {@code structuredContent} the call's usual object (which the tool's
   * {@code outputSchema} describes) plus {@code status} and {@code result}.
   */
  static ObjectNode toolResult(TaskState s) {
    ObjectNode r = Json.MAPPER.createObjectNode();
    boolean ok = s.status() == TaskStatus.SUCCEEDED;
    String text;
    if (ok) {
      text = s.result() == null ? "null" : Json.write(s.result());
    } else if (s.status() == TaskStatus.CANCELED) {
      text = "the task was cancelled" + (s.message() == null ? "" : ": " + s.message());
    } else {
      text =
          s.error() != null ? s.error() : (s.message() == null ? "the task failed" : s.message());
    }
    ArrayNode content = r.putArray("content");
    content.addObject().put("type", "text").put("text", text);
    ObjectNode structured = Json.MAPPER.valueToTree(ToolCalls.result(s.id()));
    structured.put("status", s.status().wire());
    JsonNode result = s.result();
    if (result != null) {
      structured.set("result", result);
    }
    r.set("structuredContent", structured);
    r.put("isError", !ok);
    r.putObject("_meta").set(RELATED_TASK, related(s.id()));
    return r;
  }

  static JsonNode related(String taskId) {
    return Json.MAPPER.valueToTree(Map.of("taskId", taskId));
  }
}

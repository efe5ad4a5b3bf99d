package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.gateway.mcp.wire.InputRequiredResult;
import io.taskmesh.gateway.mcp.wire.McpTask;
import io.taskmesh.gateway.mcp.wire.RelatedTask;
import io.taskmesh.gateway.mcp.wire.ToolResult;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Our tasks in MCP's shapes: the {@code Task} object and the tool result of a finished task. */
final class McpTaskViews {
  /** How often a client should poll {@code tasks/get}, in milliseconds. */
  static final int POLL_INTERVAL_MS = 1000;

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

  static McpTask task(TaskState s) {
    String message = s.error() != null ? s.error() : s.message();
    if (s.status() == TaskStatus.PAUSED) {
      message =
          (message == null ? "paused" : message)
              + ": call tasks/result, which asks for the input with elicitation/create";
    }
    // ttl null: tasks are kept as long as the task store keeps them
    return new McpTask(
        s.id(),
        status(s.status()),
        message,
        s.createdAt(),
        s.updatedAt() == null ? s.createdAt() : s.updatedAt(),
        null,
        POLL_INTERVAL_MS);
  }

  /**
   * The {@code CallToolResult} a finished task's {@code tools/call} stands for: the flow's result
   * (or error) as text, and in {@code structuredContent} the call's usual object (which the tool's
   * {@code outputSchema} describes) plus {@code status} and {@code result}.
   */
  static ToolResult toolResult(TaskState s) {
    boolean ok = s.status() == TaskStatus.SUCCEEDED;
    Map<String, Object> structured = new LinkedHashMap<>(ToolCalls.result(s.id()));
    structured.put("status", s.status().wire());
    if (s.result() != null) {
      structured.put("result", s.result());
    }
    ArrayNode shaped = ok ? mcpContent(s.result()) : null;
    if (shaped != null) {
      // the handler's own content, as a plain call answers it
      return new ToolResult(blocks(shaped), structured, false, related(s.id()), null);
    }
    String text;
    if (ok) {
      text = s.result() == null ? "null" : Json.write(s.result());
    } else if (s.status() == TaskStatus.CANCELED) {
      text = "the task was cancelled" + (s.message() == null ? "" : ": " + s.message());
    } else {
      text = failureText(s);
    }
    return ToolResult.text(text, structured, !ok, related(s.id()));
  }

  /**
   * The answer of a plain {@code tools/call} whose task ended: the flow's result as {@code
   * structuredContent} (an object result as it is, any other value under {@code result}, so the
   * tool's object {@code outputSchema} holds) and as JSON text; a failure or cancellation is a tool
   * error whose text names the failing actor and ends with the handler's traceback.
   */
  static ToolResult answer(TaskState s) {
    if (s.status() != TaskStatus.SUCCEEDED) {
      // an error result need not match the output schema
      return toolResult(s).withoutStructuredContent();
    }
    JsonNode result = s.result() == null ? NullNode.getInstance() : s.result();
    ArrayNode shaped = mcpContent(result);
    if (shaped != null) {
      // the handler chose the content itself (an image, audio, a resource): the rest of the
      // result stays the structured part, so the JSON text is not repeated beside it
      ObjectNode rest = ((ObjectNode) result).deepCopy();
      rest.remove(MCP_MEMBER);
      return new ToolResult(blocks(shaped), rest, false, related(s.id()), null);
    }
    Object structured = result.isObject() ? result : Map.of("result", result);
    return ToolResult.text(Json.write(result), structured, false, related(s.id()));
  }

  private static List<Object> blocks(ArrayNode content) {
    List<Object> blocks = new ArrayList<>();
    content.forEach(blocks::add);
    return blocks;
  }

  /** The reserved member of a flow's result object that shapes its MCP answer. */
  static final String MCP_MEMBER = "mcp";

  private static final java.util.Set<String> CONTENT_TYPES =
      java.util.Set.of("text", "image", "audio", "resource", "resource_link");

  /**
   * The content a handler chose for its MCP answer: {@code result.mcp.content}, a non-empty array
   * of content blocks each with a known {@code type}; else null, and the result is answered as JSON
   * text. A flow's result is JSON, so this is how a tool returns what JSON text cannot stand for
   * (base64 image or audio, an embedded resource), as {@code result.a2a} shapes A2A answers.
   */
  static ArrayNode mcpContent(JsonNode result) {
    if (result == null || !result.isObject()) {
      return null;
    }
    JsonNode content = result.path(MCP_MEMBER).path("content");
    if (!content.isArray() || content.isEmpty()) {
      return null;
    }
    for (JsonNode block : content) {
      if (!block.isObject() || !CONTENT_TYPES.contains(block.path("type").asText())) {
        return null;
      }
    }
    return ((ArrayNode) content).deepCopy();
  }

  /**
   * The answer of a plain {@code tools/call} whose task outlived the wait: the task's handle, with
   * a text that says how to follow it. With a flow-declared output schema the handle would not
   * match it, so the answer is then a tool error (the text still says where the result will be).
   */
  static ToolResult stillRunning(String taskId, java.time.Duration waited, boolean declaredSchema) {
    return handle(taskId, waited, declaredSchema);
  }

  private static ToolResult handle(
      String taskId, java.time.Duration waited, boolean declaredSchema) {
    String text =
        "The task "
            + taskId
            + " is still running after "
            + waited.toSeconds()
            + " s. Read its result later at /tasks/"
            + taskId
            + ", follow it at /stream/"
            + taskId
            + " or read the MCP resource taskmesh://tasks/"
            + taskId
            + ". "
            + ToolCalls.resultText(taskId);
    Object structured = declaredSchema ? null : ToolCalls.result(taskId);
    return ToolResult.text(text, structured, declaredSchema, related(taskId));
  }

  /**
   * The answer of a plain {@code tools/call} whose task paused and whose client cannot be asked (it
   * declared no elicitation): the handler's question and how to answer it; the task stays paused
   * until an answer comes.
   */
  static ToolResult asking(TaskState s, boolean declaredSchema) {
    String question = s.question() != null ? s.question() : s.message();
    String text =
        "The task "
            + s.id()
            + " is waiting for input: "
            + question
            + " Answer it with an A2A message naming the task id, or `./taskmesh tasks answer "
            + s.id()
            + " TEXT`; then read its result at /tasks/"
            + s.id()
            + ".";
    return handle(s.id(), java.time.Duration.ZERO, declaredSchema).withText(text);
  }

  /**
   * The answer of a 2026-07-28 plain {@code tools/call} whose task paused (multi round-trip
   * requests): {@code resultType: input_required}, the pause's input requests ({@link PausedInput})
   * and the signed {@code requestState} naming the pause ({@link RequestStates}); the client calls
   * the tool again with its {@code inputResponses} and that state, which resumes the task.
   */
  static InputRequiredResult inputRequired(Map<String, JsonNode> requests, String requestState) {
    return InputRequiredResult.of(requests, requestState);
  }

  /**
   * Why a task did not succeed, as a person or a model reads it: the error, the actor whose handler
   * failed, and the handler's traceback when there is one.
   */
  static String failureText(TaskState s) {
    return ErrorDetails.describe(s.error() != null ? s.error() : s.message(), s.errorDetails());
  }

  static Map<String, Object> related(String taskId) {
    return RelatedTask.meta(taskId);
  }

  /** A message as the method table answers it: the record as a JSON tree. */
  static ObjectNode tree(Object message) {
    return Json.MAPPER.valueToTree(message);
  }
}

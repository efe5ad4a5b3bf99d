package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.wire.CreateTaskResult;
import io.taskmesh.gateway.mcp.wire.EmptyResult;
import io.taskmesh.gateway.mcp.wire.ExtensionTask;
import io.taskmesh.gateway.mcp.wire.JsonRpcErrorObject;
import io.taskmesh.gateway.mcp.wire.ToolResult;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.TaskCommands;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tasks extension ({@code io.modelcontextprotocol/tasks}) as MCP 2026-07-28 clients speak it,
 * over the same taskmesh tasks as {@link McpTasks}: a flat {@code CreateTaskResult}, {@code
 * tasks/get} with the result, error or {@code inputRequests} inlined, {@code tasks/update} handing
 * the client's answer to a paused task, {@code tasks/cancel} an empty acknowledgement. Every
 * operation sees only the caller's own tasks.
 */
final class McpTaskExtension {
  static final String ID = "io.modelcontextprotocol/tasks";

  /** Prefix of the key a paused task's one input request carries in {@code inputRequests}. */
  private static final String INPUT_KEY = "taskmesh-input-";

  private static final Logger LOG = LoggerFactory.getLogger(McpTaskExtension.class);
  private final McpTasks tasks;
  private final TaskCommands commands;
  private final BiConsumer<String, JsonNode> resume;
  private final PartialAnswers partial = new PartialAnswers();

  McpTaskExtension(McpTasks tasks, TaskCommands commands, BiConsumer<String, JsonNode> resume) {
    this.tasks = tasks;
    this.commands = commands;
    this.resume = resume;
  }

  /** Whether the request's client capabilities name the extension. */
  static boolean declaredBy(JsonNode params) {
    return params
        .path("_meta")
        .path(StatelessRequestCheck.META_CAPABILITIES)
        .path("extensions")
        .has(ID);
  }

  /** -32021 naming the extension: a tasks method or a task filter from a client without it. */
  static McpError missingCapability() {
    return new McpError(
        JsonRpcError.MISSING_CLIENT_CAPABILITY,
        "Missing required client capability: extensions." + ID,
        McpToolMethods.requiring(Map.of("extensions", Map.of(ID, Map.of()))));
  }

  /** The {@code CreateTaskResult} of a task this gateway has just started. */
  static CreateTaskResult created(String id) {
    return CreateTaskResult.started(id, Instant.now().toString(), McpTaskViews.POLL_INTERVAL_MS);
  }

  /** {@code tasks/get}: the task, with what its status implies inlined. */
  ExtensionTask get(JsonNode params, String owner) {
    TaskState s = tasks.visible(params, owner);
    return detailed(s, partial.of(s));
  }

  /**
   * {@code tasks/update}: answers to every input request of the paused task resume it with the
   * input they make ({@link PausedInput}); answers to other keys, a declined question, answers that
   * leave a request open, or answers for a task that no longer waits are ignored, as the extension
   * asks (a partial answer is not kept: the client sends them all in one update).
   */
  EmptyResult update(JsonNode params, String owner) {
    TaskState s = tasks.visible(params, owner);
    JsonNode responses = params.get("inputResponses");
    if (responses != null && !responses.isObject()) {
      throw McpError.invalidParams("'inputResponses' must be an object keyed by input request");
    }
    if (s.status() != TaskStatus.PAUSED || responses == null) {
      return EmptyResult.INSTANCE;
    }
    // answers may come one update at a time: kept until the last request is answered
    JsonNode gathered = partial.add(s, responses);
    Optional<JsonNode> input = PausedInput.input(s, gathered, null);
    if (input.isPresent()) {
      resume(s, input.get());
      partial.forget(s.id());
    }
    return EmptyResult.INSTANCE;
  }

  /** Hands {@code input} to the paused task; -32603 when it cannot be written (retry). */
  void resume(TaskState s, JsonNode input) {
    try {
      resume.accept(s.id(), input);
    } catch (RuntimeException e) {
      LOG.warn("task {} could not be resumed: {}", s.id(), e.getMessage());
      throw new McpError(
          JsonRpcError.INTERNAL_ERROR, "the input could not be handed to the task, retry");
    }
  }

  /** {@code tasks/cancel}: asks a task that still runs to stop; the outcome shows in tasks/get. */
  EmptyResult cancel(JsonNode params, String owner) {
    TaskState s = tasks.visible(params, owner);
    if (s.status() == null || !s.status().isFinal()) {
      commands.cancel(s.id(), "cancelled by the MCP client");
    }
    return EmptyResult.INSTANCE;
  }

  /**
   * The extension's statuses from ours. A failed flow is a tool that ran and reported an error:
   * {@code completed} with {@code isError} (the extension keeps {@code failed} for protocol errors,
   * which never reach a task here). Only a paused task waits for this client's input; auth_required
   * waits for someone else and stays {@code working}.
   */
  static String status(TaskState s) {
    if (s.status() == TaskStatus.FAILED
        && s.errorDetails() != null
        && PROTOCOL_FAILURES.contains(s.errorDetails().reason())) {
      return "failed";
    }
    return status(s.status());
  }

  /**
   * The sidecar's reasons for a failure no handler reported: its runtime crashed, broke the runtime
   * protocol, or never answered in time. These are the extension's protocol-level {@code failed}; a
   * handler that raised is a tool that reported an error.
   */
  private static final java.util.Set<String> PROTOCOL_FAILURES =
      java.util.Set.of("RuntimeCrashed", "RuntimeProtocolError", "Timeout");

  static String status(TaskStatus status) {
    if (status == null) {
      return "working";
    }
    return switch (status) {
      case SUCCEEDED, FAILED -> "completed";
      case CANCELED -> "cancelled";
      case PAUSED -> "input_required";
      default -> "working";
    };
  }

  static ExtensionTask detailed(TaskState s) {
    return detailed(s, null);
  }

  /** As above, without the input requests {@code answered} answers already (null: none). */
  static ExtensionTask detailed(TaskState s, JsonNode answered) {
    String status = status(s);
    ToolResult result = null;
    Map<String, JsonNode> inputRequests = null;
    JsonRpcErrorObject error = null;
    if (status.equals("completed")) {
      result = McpTaskViews.toolResult(s).inlined();
    } else if (status.equals("input_required")) {
      inputRequests = PausedInput.unanswered(s, answered, null);
    } else if (status.equals("failed")) {
      error = new JsonRpcErrorObject(JsonRpcError.INTERNAL_ERROR, McpTaskViews.failureText(s));
    }
    // ttlMs null: kept as long as the task store keeps the task
    return new ExtensionTask(
        s.id(),
        status,
        statusMessage(s),
        s.createdAt(),
        s.updatedAt() == null ? s.createdAt() : s.updatedAt(),
        null,
        McpTaskViews.POLL_INTERVAL_MS,
        result,
        inputRequests,
        error,
        null);
  }

  /** The task's progress in words: the percent done and the actor at work. */
  private static String statusMessage(TaskState s) {
    String text = s.error() != null ? s.error() : s.message();
    StringBuilder m = new StringBuilder();
    double percent = s.status() == TaskStatus.SUCCEEDED ? 100 : s.progressPercent();
    m.append(Math.round(percent)).append("% done");
    if (s.currentActorName() != null) {
      m.append(", actor ").append(s.currentActorName()).append(" (#");
      m.append(s.currentActorIdx()).append(')');
    }
    if (text != null) {
      m.append(": ").append(text);
    }
    if (s.status() == TaskStatus.PAUSED) {
      m.append(" (answer the input request with tasks/update)");
    }
    return m.toString();
  }

  /** One key per pause: an answer to an earlier pause does not resume a later one. */
  static String inputKey(TaskState s) {
    return INPUT_KEY + s.seq();
  }
}

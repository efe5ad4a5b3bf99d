package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.launch.DispatchException;
import io.taskmesh.gateway.launch.ToolArguments;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.gateway.mcp.wire.CreatedTask;
import io.taskmesh.gateway.mcp.wire.InputRequiredResult;
import io.taskmesh.gateway.mcp.wire.ToolList;
import io.taskmesh.gateway.mcp.wire.ToolResult;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.EventLogException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tools (our flows): {@code tools/list} for both eras, and {@code tools/call} as each era
 * answers it. Both start the flow's task the same way; they differ in how the caller follows it.
 */
final class McpToolMethods {
  private static final Logger LOG = LoggerFactory.getLogger(McpToolMethods.class);
  private static final Duration DEADLINE_GRACE = Duration.ofSeconds(5);

  private final ToolCalls calls;
  private final McpToolList tools;
  private final McpTasks tasks;
  private final McpTaskExtension extension;
  private final McpStreamedCall streamed;

  McpToolMethods(
      ToolCalls calls,
      McpToolList tools,
      McpTasks tasks,
      McpTaskExtension extension,
      SseWriters writers) {
    this.calls = calls;
    this.tools = tools;
    this.tasks = tasks;
    this.extension = extension;
    this.streamed = new McpStreamedCall(tasks, writers);
  }

  ToolList list() {
    return tools.tools();
  }

  /**
   * Session era: starts the flow's task. A plain call waits for the task and answers its result
   * ({@link McpTasks#answer}), its progress on the request's own stream; a task-augmented one (with
   * {@code params.task}) answers the MCP task of the same id at once and its progress and statuses
   * go to the session.
   */
  CompletableFuture<?> callInSession(McpCall call) {
    McpSession session = call.session();
    JsonNode params = call.params();
    String name = params.path("name").asText();
    JsonNode progressToken = params.path("_meta").get("progressToken");
    boolean asTask = params.hasNonNull("task");
    Started started = start(name, params.get("arguments"), session.owner());
    if (started.failure() != null) {
      return McpMethods.done(started.failure());
    }
    String id = started.id();
    if (!asTask) {
      return tasks.answer(
          id, session.owner(), plainCall(name, progressToken), call.requestStream(), session);
    }
    tasks.follow(id, session.owner(), progressToken, true, session);
    return McpMethods.done(createdInSession(id, Instant.now().toString()));
  }

  /** The session era's {@code CreateTaskResult} of a task started at {@code now}. */
  static CreatedTask createdInSession(String id, String now) {
    return CreatedTask.started(id, now, McpTaskViews.POLL_INTERVAL_MS, ToolCalls.resultText(id));
  }

  /**
   * Sessionless era: starts the flow's task. With the tasks extension declared, the task itself
   * comes back; else the call is answered on its own stream (with its progress, given a progress
   * token). Null once it is being answered on its own stream.
   */
  Object callSessionless(McpCall call) {
    JsonNode params = call.params();
    String owner = call.owner();
    String name = params.path("name").asText();
    JsonNode token = params.path("_meta").get("progressToken");
    JsonNode declared = params.path("_meta").path(StatelessRequestCheck.META_CAPABILITIES);
    JsonNode capabilities = declared.isObject() ? declared : null;
    if (params.hasNonNull("requestState")) {
      // the retry of a call that answered input_required: its answers resume the same task
      TaskState paused = tasks.paused(params, owner);
      Optional<InputRequiredResult> askAgain = askAgain(paused, params, capabilities);
      if (askAgain.isPresent()) {
        return askAgain.get();
      }
      if (McpTaskExtension.declaredBy(params)
          && calls.flows().tool(name).map(TaskSupport::asksBeforeTask).orElse(false)) {
        // its questions are answered: from here on the call is the task it asked for
        return McpTaskExtension.created(paused.id());
      }
      McpTasks.PlainCall plain = plainCall(name, token).continuing(capabilities, paused.seq());
      streamed.answer(call.http(), call.id(), plain, paused.id(), owner);
      return null;
    }
    requireCapabilities(name, params);
    TaskSupport support =
        calls.flows().tool(name).map(TaskSupport::of).orElse(TaskSupport.OPTIONAL);
    boolean takesTask = McpTaskExtension.declaredBy(params);
    if (support == TaskSupport.REQUIRED && !takesTask) {
      // the call could only be answered with a task, which this client cannot take
      throw McpTaskExtension.missingCapability();
    }
    Started started = start(name, params.get("arguments"), owner);
    if (started.failure() != null) {
      return started.failure();
    }
    boolean asksFirst = calls.flows().tool(name).map(TaskSupport::asksBeforeTask).orElse(false);
    if (takesTask && support != TaskSupport.FORBIDDEN && !asksFirst) {
      return McpTaskExtension.created(started.id());
    }
    McpTasks.PlainCall plain = plainCall(name, token).continuing(capabilities, -1);
    streamed.answer(call.http(), call.id(), plain, started.id(), owner);
    return null;
  }

  /**
   * -32021 before any task starts when the tool's flow names client capabilities it needs ({@code
   * mcp.requiredClientCapabilities}, e.g. {@code {elicitation: {}}} for a flow that pauses for
   * input) that the call's {@code clientCapabilities} do not declare: 2026-07-28 has no session to
   * learn them from, and a server must not rely on a capability the client did not declare.
   */
  private void requireCapabilities(String name, JsonNode params) {
    JsonNode required =
        calls
            .flows()
            .tool(name)
            .map(f -> f.mcp() == null ? null : f.mcp().get("requiredClientCapabilities"))
            .orElse(null);
    if (required == null || !required.isObject()) {
      return;
    }
    JsonNode declared = params.path("_meta").path(StatelessRequestCheck.META_CAPABILITIES);
    Map<String, Object> missing = new LinkedHashMap<>();
    required
        .properties()
        .forEach(
            f -> {
              if (!declared.has(f.getKey())) {
                missing.put(f.getKey(), f.getValue());
              }
            });
    if (!missing.isEmpty()) {
      throw new McpError(
          JsonRpcError.MISSING_CLIENT_CAPABILITY,
          "Missing required client capability: " + String.join(", ", missing.keySet()),
          requiring(missing));
    }
  }

  /** The {@code data} of -32021: the client capabilities the request needs and lacks. */
  record MissingCapabilities(Map<String, Object> requiredCapabilities) {}

  static MissingCapabilities requiring(Map<String, Object> capabilities) {
    return new MissingCapabilities(capabilities);
  }

  /**
   * Hands a retried call's {@code inputResponses} to the pause its {@code requestState} names (as
   * {@code tasks/update} would). Answers that leave a request open, or decline the one question,
   * resume nothing: the call is answered {@code input_required} again with what is still open,
   * under the same state. A pause already answered (the retry came twice) is not asked again.
   */
  private Optional<InputRequiredResult> askAgain(
      TaskState paused, JsonNode params, JsonNode capabilities) {
    if (!params.path("name").asText().equals(paused.flow())) {
      throw McpError.invalidParams("'requestState' names a task of another tool");
    }
    JsonNode responses = params.get("inputResponses");
    if (responses != null && !responses.isObject()) {
      throw McpError.invalidParams("'inputResponses' must be an object keyed by input request");
    }
    if (paused.status() != TaskStatus.PAUSED
        || paused.seq() != tasks.pausedAt(params.get("requestState").asText())) {
      return Optional.empty();
    }
    Optional<JsonNode> input = PausedInput.input(paused, responses, capabilities);
    if (input.isEmpty()) {
      Map<String, JsonNode> open = PausedInput.unanswered(paused, responses, capabilities);
      return Optional.of(
          McpTaskViews.inputRequired(
              open.isEmpty() ? PausedInput.requests(paused, capabilities) : open,
              params.get("requestState").asText()));
    }
    extension.resume(paused, input.get());
    return Optional.empty();
  }

  /**
   * How long a plain call of tool {@code name} waits: the flow's timeout and a little more (the
   * task fails at its deadline, and that failure is the better answer), else the gateway's setting.
   */
  private McpTasks.PlainCall plainCall(String name, JsonNode progressToken) {
    Optional<FlowConfig> flow = calls.flows().tool(name);
    Duration wait =
        flow.map(FlowConfig::timeout)
            .map(t -> Duration.ofMillis((long) (t * 1000)).plus(DEADLINE_GRACE))
            .orElse(calls.callWait());
    boolean declared =
        flow.map(f -> f.mcp() != null && f.mcp().path("outputSchema").isObject()).orElse(false);
    return new McpTasks.PlainCall(progressToken, wait, declared);
  }

  /** A tool call's task: its id, or the tool error result that says why it did not start. */
  private record Started(String id, ToolResult failure) {}

  /**
   * Starts the flow's task for either era; an unknown tool is -32602, bad arguments or a log that
   * cannot take the task are a tool error result.
   */
  private Started start(String name, JsonNode arguments, String owner) {
    String id;
    try {
      id = calls.start(name, arguments, owner);
    } catch (ToolCalls.UnknownTool e) {
      throw McpError.invalidParams("Unknown tool: " + name);
    } catch (ToolArguments.InvalidArguments | ToolCalls.ArgumentsTooLarge e) {
      // argument problems are tool execution errors (MCP tools, "Error Handling"): the model can
      // correct them
      return new Started(null, errorResult(e.getMessage()));
    } catch (EventLogException | DispatchException e) {
      LOG.error("tool {} could not start a task: {}", name, e.getMessage());
      return new Started(null, errorResult("the task could not be started: task log unavailable"));
    }
    return new Started(id, null);
  }

  static ToolResult errorResult(String message) {
    return ToolResult.text(message, null, true, null);
  }
}

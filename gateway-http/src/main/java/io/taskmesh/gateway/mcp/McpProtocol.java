package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.launch.DispatchException;
import io.taskmesh.gateway.launch.ToolArguments;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.ViewUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MCP methods the gateway answers, whatever the transport: lifecycle, tools (flows), tasks (our
 * tasks) and resources (our tasks again). A request's answer is a future, done at once except for
 * {@code tasks/result}, which waits for the task.
 */
final class McpProtocol {
  static final String LATEST = "2025-11-25";
  static final List<String> SUPPORTED = List.of(LATEST, "2025-06-18", "2025-03-26", "2024-11-05");
  private static final Logger LOG = LoggerFactory.getLogger(McpProtocol.class);
  private static final Duration DEADLINE_GRACE = Duration.ofSeconds(5);

  private final ToolCalls calls;
  private final McpToolList tools;
  private final McpTasks tasks;
  private final McpResources resources;
  private final String version;

  McpProtocol(
      ToolCalls calls, McpToolList tools, McpTasks tasks, McpResources resources, String version) {
    this.calls = calls;
    this.tools = tools;
    this.tasks = tasks;
    this.resources = resources;
    this.version = version;
  }

  /** Answers a request (a message with {@code method} and {@code id}): the whole response. */
  CompletableFuture<ObjectNode> request(McpSession session, JsonNode message) {
    return request(session, message, session::send);
  }

  /**
   * Answers a request; what the request itself sends while it waits (a plain {@code tools/call}'s
   * progress) goes to {@code requestStream}, the stream its answer will come on.
   */
  CompletableFuture<ObjectNode> request(
      McpSession session, JsonNode message, Consumer<String> requestStream) {
    JsonNode id = message.get("id");
    String method = message.path("method").asText();
    JsonNode params = message.get("params");
    CompletableFuture<ObjectNode> result;
    try {
      result =
          dispatch(
              session,
              method,
              params == null ? Json.MAPPER.createObjectNode() : params,
              requestStream);
    } catch (RuntimeException e) {
      result = CompletableFuture.failedFuture(e);
    }
    return result.handle((r, e) -> e == null ? success(id, r) : failure(id, method, e));
  }

  /** Takes a notification or a response from the client; none needs an answer. */
  void notification(McpSession session, JsonNode message) {
    if (!message.has("method")) {
      session.answered(message); // a response to our elicitation/create
    }
    // notifications/initialized, notifications/cancelled (our tasks run on: tasks/cancel stops
    // them), roots/list_changed: nothing to do
  }

  private CompletableFuture<ObjectNode> dispatch(
      McpSession session, String method, JsonNode params, Consumer<String> requestStream) {
    String owner = session.owner();
    return switch (method) {
      case "initialize" -> done(initialize(session, params));
      case "ping" -> done(Json.MAPPER.createObjectNode());
      case "logging/setLevel" -> {
        session.logLevel(params == null ? null : params.path("level").asText(null));
        yield done(Json.MAPPER.createObjectNode());
      }
      case "tools/list" -> done(toolList());
      case "tools/call" -> callTool(session, params, requestStream);
      case "tasks/get" -> done(tasks.get(params, owner));
      case "tasks/list" -> done(tasks.list(params, owner));
      case "tasks/cancel" -> tasks.cancel(params, owner);
      case "tasks/result" -> tasks.result(params, session);
      case "resources/list" -> done(resources.list(params, owner));
      case "resources/templates/list" -> done(resources.templates());
      case "resources/read" -> done(resources.read(params, owner));
      case "resources/subscribe" -> done(resources.subscribe(params, session));
      case "resources/unsubscribe" -> done(resources.unsubscribe(params, session));
      default -> throw new McpError(JsonRpcError.METHOD_NOT_FOUND, "Method not found: " + method);
    };
  }

  private ObjectNode initialize(McpSession session, JsonNode params) {
    String asked = params.path("protocolVersion").asText("");
    String chosen = SUPPORTED.contains(asked) ? asked : LATEST;
    session.capabilities(params.path("capabilities"));
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.put("protocolVersion", chosen);
    ObjectNode caps = r.putObject("capabilities");
    caps.putObject("tools").put("listChanged", true);
    caps.putObject("logging");
    caps.putObject("resources").put("subscribe", true).put("listChanged", false);
    ObjectNode taskCaps = caps.putObject("tasks");
    taskCaps.putObject("list");
    taskCaps.putObject("cancel");
    taskCaps.putObject("requests").putObject("tools").putObject("call");
    r.putObject("serverInfo").put("name", "taskmesh").put("version", version);
    r.put(
        "instructions",
        "Each tool runs a taskmesh flow and answers the flow's result when it ends (a failure"
            + " is a tool error naming the failing actor). A call that outlives the wait answers"
            + " the task id instead; call a tool as an MCP task (params.task) to follow it with"
            + " tasks/get and tasks/result, or read the task as the resource taskmesh://tasks/{id}.");
    return r;
  }

  private ObjectNode toolList() {
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.set("tools", tools.tools());
    return r;
  }

  /**
   * Starts the flow's task. A plain call waits for the task and answers its result ({@link
   * McpTasks#answer}), its progress on the request's own stream; a task-augmented one (with {@code
   * params.task}) answers the MCP task of the same id at once and its progress and statuses go to
   * the session.
   */
  private CompletableFuture<ObjectNode> callTool(
      McpSession session, JsonNode params, Consumer<String> requestStream) {
    String name = params.path("name").asText();
    JsonNode progressToken = params.path("_meta").get("progressToken");
    boolean asTask = params.hasNonNull("task");
    Started started = start(calls, name, params.get("arguments"), session.owner());
    if (started.failure() != null) {
      return done(started.failure());
    }
    String id = started.id();
    if (!asTask) {
      return tasks.answer(
          id, session.owner(), plainCall(calls, name, progressToken), requestStream, session);
    }
    tasks.follow(id, session.owner(), progressToken, true, session);
    ObjectNode r = Json.MAPPER.createObjectNode();
    ObjectNode task = r.putObject("task");
    task.put("taskId", id);
    task.put("status", "working");
    task.put("statusMessage", "Task started");
    String now = Instant.now().toString();
    task.put("createdAt", now);
    task.put("lastUpdatedAt", now);
    task.putNull("ttl");
    task.put("pollInterval", McpTaskViews.POLL_INTERVAL_MS);
    r.putObject("_meta")
        .put("io.modelcontextprotocol/model-immediate-response", ToolCalls.resultText(id));
    return done(r);
  }

  /**
   * How long a plain call of tool {@code name} waits: the flow's timeout and a little more (the
   * task fails at its deadline, and that failure is the better answer), else the gateway's setting.
   */
  static McpTasks.PlainCall plainCall(ToolCalls calls, String name, JsonNode progressToken) {
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
  record Started(String id, ObjectNode failure) {}

  /**
   * Starts the flow's task for either era; an unknown tool is -32602, bad arguments or a log that
   * cannot take the task are a tool error result.
   */
  static Started start(ToolCalls calls, String name, JsonNode arguments, String owner) {
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

  private static ObjectNode errorResult(String message) {
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.putArray("content").addObject().put("type", "text").put("text", message);
    r.put("isError", true);
    return r;
  }

  private static CompletableFuture<ObjectNode> done(ObjectNode result) {
    return CompletableFuture.completedFuture(result);
  }

  private static ObjectNode success(JsonNode id, ObjectNode result) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("jsonrpc", "2.0");
    m.set("id", id);
    m.set("result", result);
    return m;
  }

  private static ObjectNode failure(JsonNode id, String method, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    int code;
    String message;
    if (cause instanceof McpError err) {
      code = err.code();
      message = err.getMessage();
    } else if (cause instanceof TimeoutException) {
      code = JsonRpcError.INTERNAL_ERROR;
      message = "the task has not stopped yet; poll tasks/get";
    } else if (cause instanceof ViewUnavailableException) {
      code = JsonRpcError.INTERNAL_ERROR;
      message = "task store unavailable, retry shortly";
    } else {
      LOG.error("MCP {} failed", method, cause);
      code = JsonRpcError.INTERNAL_ERROR;
      message = "internal error";
    }
    return new JsonRpcError(200, id, code, message).json();
  }
}

package io.taskmesh.gateway.launch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A tool call, whichever door it came in by ({@code /tools/call}, MCP Streamable HTTP, MCP SSE).
 */
public final class ToolCalls {
  /**
   * The largest tool arguments (UTF-8 bytes of their JSON) a call may carry. The arguments are
   * written twice, into the task's {@code created} event and into the envelope, and each record
   * must stay under Kafka's 1 MiB default ({@code max.request.size} of the producers, {@code
   * message.max.bytes} of the broker); half of it leaves room for the rest of each record (route,
   * status, headers, and later the result next to the input in the task state).
   */
  public static final int MAX_ARGUMENT_BYTES = 512 * 1024;

  /** The JSON Schema of {@link #result}: the {@code outputSchema} of every tool. */
  public static final Map<String, Object> RESULT_SCHEMA =
      Map.of(
          "type", "object",
          "properties",
              Map.of(
                  "task_id",
                      Map.of("type", "string", "description", "id of the task the call started"),
                  "message", Map.of("type", "string"),
                  "status_url",
                      Map.of("type", "string", "description", "path of the task's state: GET it"),
                  "stream_url",
                      Map.of(
                          "type",
                          "string",
                          "description",
                          "path of the task's SSE progress stream")),
          "required", List.of("task_id", "message", "status_url", "stream_url"));

  private final FlowRegistry flows;
  private final TaskLauncher launcher;
  private final ToolArguments arguments = new ToolArguments();

  /** How long an MCP {@code tools/call} of a flow without a timeout waits for the result. */
  public static final Duration DEFAULT_CALL_WAIT = Duration.ofMinutes(5);

  private final Duration callWait;

  public ToolCalls(FlowRegistry flows, TaskLauncher launcher) {
    this(flows, launcher, DEFAULT_CALL_WAIT);
  }

  public ToolCalls(FlowRegistry flows, TaskLauncher launcher, Duration callWait) {
    this.flows = flows;
    this.launcher = launcher;
    this.callWait = callWait;
  }

  /** How long a plain MCP call of a flow without its own timeout waits for the task to end. */
  public Duration callWait() {
    return callWait;
  }

  /** The tool is not (or no longer) registered. */
  public static final class UnknownTool extends RuntimeException {
    UnknownTool(String name) {
      super("tool not found: " + name);
    }
  }

  /** The arguments are over {@link #MAX_ARGUMENT_BYTES}; the message names the limit. */
  public static final class ArgumentsTooLarge extends RuntimeException {
    ArgumentsTooLarge(String tool, long bytes) {
      super(
          "arguments of tool '"
              + tool
              + "' are "
              + bytes
              + " bytes, over the limit of "
              + MAX_ARGUMENT_BYTES
              + " bytes");
    }
  }

  /**
   * Validates and starts the task; returns its id. Nothing is written unless every check passes.
   *
   * @throws UnknownTool no such tool
   * @throws ArgumentsTooLarge arguments over {@link #MAX_ARGUMENT_BYTES}
   * @throws ToolArguments.InvalidArguments arguments do not match {@code mcp.inputSchema}
   */
  public String start(String toolName, JsonNode input, String owner) {
    FlowConfig flow = flows.tool(toolName).orElseThrow(() -> new UnknownTool(toolName));
    JsonNode args = input == null || input.isNull() ? JsonNodeFactory.instance.objectNode() : input;
    long bytes = Json.write(args).getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_ARGUMENT_BYTES) {
      throw new ArgumentsTooLarge(toolName, bytes);
    }
    arguments.check(flow, args);
    return launcher.start(flow, args, owner);
  }

  /**
   * The spec's tool result object for a started task. The spec names {@code /mesh/{id}} paths, but
   * tools are only served where the api route set is (api and testing modes), and the mesh set is
   * not served in the api mode; the api routes {@code /tasks/{id}} and {@code /stream/{id}} are
   * served wherever a tool can be called and apply the caller's auth and owner isolation.
   */
  public static Map<String, Object> result(String taskId) {
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("task_id", taskId);
    result.put("message", "Task started");
    result.put("status_url", "/tasks/" + taskId);
    result.put("stream_url", "/stream/" + taskId);
    return result;
  }

  /** The text of the spec's CallToolResult for a started task: {@link #result} as JSON. */
  public static String resultText(String taskId) {
    return Json.write(result(taskId));
  }

  /**
   * The CallToolResult of {@code /tools/call}: the spec's text plus the same object as {@code
   * structuredContent}.
   */
  public static Map<String, Object> callToolResult(String taskId) {
    return Map.of(
        "content",
        List.of(Map.of("type", "text", "text", resultText(taskId))),
        "structuredContent",
        result(taskId),
        "isError",
        false);
  }

  public FlowRegistry flows() {
    return flows;
  }
}

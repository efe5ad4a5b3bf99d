package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.topology.ViewUnavailableException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MCP 2026-07-28 on {@code /mcp}: no session, no {@code initialize}; each POST carries its
 * revision, client capabilities and routing headers ({@link StatelessRequestCheck}) and is answered
 * on its own. Served: {@code server/discover}, the tools (flows), the caller's tasks as resources,
 * an empty prompt list, the tasks extension ({@link McpTaskExtension}), {@code
 * subscriptions/listen} ({@link McpListen}) and, for a call with a progress token but without the
 * extension, the call answered on its own stream with its progress ({@link McpStreamedCall}). Every
 * result carries {@code resultType}; list results and reads carry the cache hints {@code ttlMs} and
 * {@code cacheScope}. A method of the session era ({@code initialize}, {@code ping}, {@code
 * resources/subscribe}) is 404 -32601, as the revision asks of a method it does not define.
 */
final class McpStateless {
  static final String VERSION = "2026-07-28";

  /** Every revision the endpoint speaks: this one sessionless, the older ones by initialize. */
  static final List<String> SUPPORTED =
      List.of(VERSION, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

  /** How long a client may reuse the tool list (it changes only with the flow config). */
  static final int TOOLS_TTL_MS = 60_000;

  private static final Set<String> CACHEABLE =
      Set.of(
          "server/discover",
          "tools/list",
          "prompts/list",
          "resources/list",
          "resources/templates/list",
          "resources/read");
  private static final Logger LOG = LoggerFactory.getLogger(McpStateless.class);

  private final ToolCalls calls;
  private final McpToolList tools;
  private final McpTasks tasks;
  private final McpTaskExtension extension;
  private final McpResources resources;
  private final McpListen listen;
  private final McpStreamedCall streamed;
  private final McpAuth auth;
  private final String serverVersion;

  McpStateless(
      ToolCalls calls,
      McpToolList tools,
      McpTasks tasks,
      McpTaskExtension extension,
      McpResources resources,
      McpListen listen,
      McpAuth auth,
      String serverVersion) {
    this.calls = calls;
    this.tools = tools;
    this.tasks = tasks;
    this.extension = extension;
    this.resources = resources;
    this.listen = listen;
    this.streamed = new McpStreamedCall(tasks);
    this.auth = auth;
    this.serverVersion = serverVersion;
  }

  /**
   * Whether a POST without a session is for this era: it names a revision (header, else {@code
   * _meta}) that is not one of the session era's. A sessionless request naming none, or an older
   * one, keeps the session era's answer (400, no session), and an {@code initialize} naming no
   * revision in a header is the session era's handshake.
   */
  static boolean applies(HttpServletRequest req, JsonNode message) {
    if (req.getHeader(McpAuthFilter.SESSION_HEADER) != null) {
      return false;
    }
    String header = req.getHeader("MCP-Protocol-Version");
    if (header != null) {
      return !McpProtocol.SUPPORTED.contains(header.strip());
    }
    return !"initialize".equals(message.path("method").asText())
        && message.path("params").path("_meta").has(StatelessRequestCheck.META_VERSION);
  }

  /** Answers one sessionless message for the caller {@code owner}. */
  void serve(HttpServletRequest req, HttpServletResponse res, JsonNode message, String owner)
      throws IOException {
    if (!message.has("method")) {
      JsonRpcError.transport(400, JsonRpcError.INVALID_REQUEST, "a client sends no responses")
          .writeTo(res);
      return;
    }
    if (!message.hasNonNull("id")) {
      // the one client notification acted on: a client ending its listen
      if ("notifications/cancelled".equals(message.path("method").asText())) {
        listen.cancel(owner, message.path("params").path("requestId"));
      }
      res.setStatus(202);
      return;
    }
    Optional<JsonRpcError> fault = StatelessRequestCheck.fault(req, message, SUPPORTED);
    if (fault.isEmpty() && "tools/call".equals(message.path("method").asText())) {
      fault = paramHeaderFault(req, message);
    }
    if (fault.isPresent()) {
      fault.get().writeTo(res);
      return;
    }
    JsonNode id = message.get("id");
    String method = message.get("method").asText();
    JsonNode params = message.get("params");
    ObjectNode result;
    try {
      result = dispatch(req, id, method, params, owner);
    } catch (McpError e) {
      new JsonRpcError(statusOf(e.code()), id, e.code(), e.getMessage(), e.data()).writeTo(res);
      return;
    } catch (ViewUnavailableException e) {
      new JsonRpcError(
              503, id, JsonRpcError.INTERNAL_ERROR, "task store unavailable, retry shortly")
          .writeTo(res);
      return;
    } catch (RuntimeException e) {
      LOG.error("MCP {} failed", method, e);
      new JsonRpcError(500, id, JsonRpcError.INTERNAL_ERROR, "internal error").writeTo(res);
      return;
    }
    if (result == null) {
      return; // answered on its own stream
    }
    result.putIfAbsent("resultType", Json.MAPPER.getNodeFactory().textNode("complete"));
    if (CACHEABLE.contains(method)) {
      cacheHints(method, result);
    }
    write(res, id, result);
  }

  /** The method's result, or null once the request is being answered on its own stream. */
  private ObjectNode dispatch(
      HttpServletRequest req, JsonNode id, String method, JsonNode params, String owner) {
    return switch (method) {
      case "server/discover" -> discover();
      case "subscriptions/listen" -> {
        listen.open(req, id, params, owner);
        yield null;
      }
      case "tools/list" -> list("tools", tools.tools());
      case "tools/call" -> callTool(req, id, params, owner);
      case "prompts/list" -> list("prompts", Json.MAPPER.createArrayNode());
      case "prompts/get" -> throw McpError.invalidParams("Unknown prompt: " + params.path("name"));
      case "resources/list" -> resources.list(params, owner);
      case "resources/templates/list" -> resources.templates();
      case "resources/read" -> read(params, owner);
      case "tasks/get" -> extension.get(declaring(params), owner);
      case "tasks/update" -> extension.update(declaring(params), owner);
      case "tasks/cancel" -> extension.cancel(declaring(params), owner);
      default -> throw new McpError(JsonRpcError.METHOD_NOT_FOUND, "Method not found: " + method);
    };
  }

  /**
   * SEP-2243: each argument of a property its tool's input schema marks {@code x-mcp-header: Name}
   * must also be sent as the header {@code Mcp-Param-Name} with the same value (Base64 sentinel
   * decoded), so that proxies may route on it; a missing or different one is HTTP 400 -32020.
   */
  private Optional<JsonRpcError> paramHeaderFault(HttpServletRequest req, JsonNode message) {
    JsonNode params = message.path("params");
    JsonNode properties =
        calls
            .flows()
            .tool(params.path("name").asText())
            .map(f -> f.mcp() == null ? null : f.mcp().path("inputSchema").path("properties"))
            .orElse(null);
    if (properties == null || !properties.isObject()) {
      return Optional.empty();
    }
    JsonNode arguments = params.path("arguments");
    for (var it = properties.properties().iterator(); it.hasNext(); ) {
      var property = it.next();
      String header = property.getValue().path("x-mcp-header").asText(null);
      JsonNode value = arguments.get(property.getKey());
      if (header == null || value == null || value.isNull()) {
        continue;
      }
      String sent = req.getHeader("Mcp-Param-" + header);
      String got = sent == null ? null : StatelessRequestCheck.strictlyDecoded(sent.strip());
      String expected = value.isTextual() ? value.asText() : value.toString();
      if (!expected.equals(got)) {
        return Optional.of(
            new JsonRpcError(
                400,
                message.get("id"),
                JsonRpcError.HEADER_MISMATCH,
                "Mcp-Param-" + header + " does not match the argument " + property.getKey()));
      }
    }
    return Optional.empty();
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
    ObjectNode missing = Json.MAPPER.createObjectNode();
    required
        .properties()
        .iterator()
        .forEachRemaining(
            f -> {
              if (!declared.has(f.getKey())) {
                missing.set(f.getKey(), f.getValue());
              }
            });
    if (!missing.isEmpty()) {
      ObjectNode data = Json.MAPPER.createObjectNode();
      data.set("requiredCapabilities", missing);
      throw new McpError(
          JsonRpcError.MISSING_CLIENT_CAPABILITY,
          "Missing required client capability: "
              + String.join(", ", (Iterable<String>) missing::fieldNames),
          data);
    }
  }

  /** The params of a tasks method; -32021 when the client did not declare the extension. */
  private static JsonNode declaring(JsonNode params) {
    if (!McpTaskExtension.declaredBy(params)) {
      throw McpTaskExtension.missingCapability();
    }
    return params;
  }

  private ObjectNode discover() {
    ObjectNode r = Json.MAPPER.createObjectNode();
    SUPPORTED.forEach(r.putArray("supportedVersions")::add);
    ObjectNode caps = r.putObject("capabilities");
    // delivered on subscriptions/listen; the prompt list (empty) never changes
    caps.putObject("tools").put("listChanged", true);
    caps.putObject("resources").put("subscribe", true);
    caps.putObject("prompts");
    caps.putObject("extensions").putObject(McpTaskExtension.ID);
    r.put(
        "instructions",
        "Each tool runs a taskmesh flow as a long-running task. Declare the "
            + McpTaskExtension.ID
            + " extension to get the task back from tools/call and follow it with tasks/get"
            + " (tasks/update answers its input requests) or hear it on subscriptions/listen"
            + " (taskIds); without the extension, a call is answered on its own stream with the"
            + " task's progress (given a progressToken) and the flow's result. Each task is also the resource"
            + " taskmesh://tasks/{id}.");
    r.putObject("_meta")
        .putObject("io.modelcontextprotocol/serverInfo")
        .put("name", "taskmesh")
        .put("version", serverVersion);
    return r;
  }

  /**
   * Starts the flow's task: with the tasks extension declared, the task itself comes back; with a
   * progress token, the call is answered on its own stream; else the task id at once, as a plain
   * call of the session era.
   */
  private ObjectNode callTool(HttpServletRequest req, JsonNode id, JsonNode params, String owner) {
    String name = params.path("name").asText();
    JsonNode token = params.path("_meta").get("progressToken");
    JsonNode declared = params.path("_meta").path(StatelessRequestCheck.META_CAPABILITIES);
    JsonNode capabilities = declared.isObject() ? declared : null;
    if (params.hasNonNull("requestState")) {
      // the retry of a call that answered input_required: its answers resume the same task
      TaskState paused = tasks.paused(params, owner);
      Optional<ObjectNode> askAgain = askAgain(paused, params, capabilities);
      if (askAgain.isPresent()) {
        return askAgain.get();
      }
      McpTasks.PlainCall call =
          McpProtocol.plainCall(calls, name, token).continuing(capabilities, paused.seq());
      streamed.answer(req, id, call, paused.id(), owner);
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
    McpProtocol.Started started = McpProtocol.start(calls, name, params.get("arguments"), owner);
    if (started.failure() != null) {
      return started.failure();
    }
    if (takesTask && support != TaskSupport.FORBIDDEN) {
      return McpTaskExtension.created(started.id());
    }
    McpTasks.PlainCall call =
        McpProtocol.plainCall(calls, name, token).continuing(capabilities, -1);
    streamed.answer(req, id, call, started.id(), owner);
    return null;
  }

  /**
   * Hands a retried call's {@code inputResponses} to the pause its {@code requestState} names (as
   * {@code tasks/update} would). Answers that leave a request open, or decline the one question,
   * resume nothing: the call is answered {@code input_required} again with what is still open,
   * under the same state. A pause already answered (the retry came twice) is not asked again.
   */
  private Optional<ObjectNode> askAgain(TaskState paused, JsonNode params, JsonNode capabilities) {
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
      ObjectNode open = PausedInput.unanswered(paused, responses, capabilities);
      return Optional.of(
          McpTaskViews.inputRequired(
              open.isEmpty() ? PausedInput.requests(paused, capabilities) : open,
              params.get("requestState").asText()));
    }
    extension.resume(paused, input.get());
    return Optional.empty();
  }

  /** 2026-07-28 names an unknown resource -32602 with its URI (the session era: -32002). */
  private ObjectNode read(JsonNode params, String owner) {
    try {
      return resources.read(params, owner);
    } catch (McpError e) {
      if (e.code() != McpResources.RESOURCE_NOT_FOUND) {
        throw e;
      }
      ObjectNode data = Json.MAPPER.createObjectNode().put("uri", params.path("uri").asText());
      throw new McpError(JsonRpcError.INVALID_PARAMS, "Resource not found", data);
    }
  }

  private static ObjectNode list(String field, JsonNode items) {
    ObjectNode r = Json.MAPPER.createObjectNode();
    r.set(field, items);
    return r;
  }

  /**
   * Tools, prompts and templates change only with the flow config: reusable for a minute, by anyone
   * unless MCP auth is on. Task resources change with every update and are the caller's own: not
   * reusable, private.
   */
  private void cacheHints(String method, ObjectNode result) {
    boolean tasksInside = method.startsWith("resources/") && !method.endsWith("templates/list");
    result.put("ttlMs", tasksInside ? 0 : TOOLS_TTL_MS);
    result.put("cacheScope", tasksInside || auth.enabled() ? "private" : "public");
  }

  private static int statusOf(int code) {
    return switch (code) {
      case JsonRpcError.METHOD_NOT_FOUND -> 404;
      case JsonRpcError.HEADER_MISMATCH,
          JsonRpcError.MISSING_CLIENT_CAPABILITY,
          JsonRpcError.UNSUPPORTED_PROTOCOL_VERSION ->
          400;
      default -> 200; // an error of the method itself is the request's answer
    };
  }

  private static void write(HttpServletResponse res, JsonNode id, ObjectNode result)
      throws IOException {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("jsonrpc", "2.0");
    m.set("id", id);
    m.set("result", result);
    McpServlet.writeJson(res, m);
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.Json;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;
import java.util.Set;

/**
 * MCP 2026-07-28's transport on {@code /mcp}: no session, no {@code initialize}; each POST carries
 * its revision, client capabilities and routing headers ({@link StatelessRequestCheck}) and is
 * answered on its own, by the sessionless handlers of the method table ({@link McpMethods}). Every
 * result carries {@code resultType}; list results and reads carry the cache hints {@code ttlMs} and
 * {@code cacheScope}. A method of the session era ({@code initialize}, {@code ping}, {@code
 * resources/subscribe}) is 404 -32601, as the revision asks of a method it does not define.
 */
final class McpStateless {
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

  private final ToolCalls calls;
  private final McpMethods methods;
  private final McpListen listen;
  private final McpAuth auth;

  McpStateless(ToolCalls calls, McpMethods methods, McpListen listen, McpAuth auth) {
    this.calls = calls;
    this.methods = methods;
    this.listen = listen;
    this.auth = auth;
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
      return !McpRevisions.bySession(header.strip());
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
    Optional<JsonRpcError> fault = StatelessRequestCheck.fault(req, message);
    if (fault.isEmpty() && "tools/call".equals(message.path("method").asText())) {
      fault = paramHeaderFault(req, message);
    }
    if (fault.isPresent()) {
      fault.get().writeTo(res);
      return;
    }
    McpCall call = McpCall.sessionless(req, message, owner);
    JsonNode id = call.id();
    String method = call.method();
    Object answered;
    try {
      // every sessionless method answers at once: the future is done
      answered = methods.call(McpMethods.Era.STATELESS, call).join();
    } catch (RuntimeException e) {
      McpFailures.of(id, method, e).writeTo(res);
      return;
    }
    if (answered == null) {
      return; // answered on its own stream
    }
    // the era's framing: each result says what it is, the cacheable ones for how long
    ObjectNode result = Json.MAPPER.valueToTree(answered);
    result.putIfAbsent("resultType", Json.MAPPER.getNodeFactory().textNode("complete"));
    if (CACHEABLE.contains(method)) {
      cacheHints(method, result);
    }
    McpServlet.writeJson(res, McpSessionCalls.success(id, result));
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
   * Tools, prompts and templates change only with the flow config: reusable for a minute, by anyone
   * unless MCP auth is on. Task resources change with every update and are the caller's own: not
   * reusable, private.
   */
  private void cacheHints(String method, ObjectNode result) {
    boolean tasksInside = method.startsWith("resources/") && !method.endsWith("templates/list");
    result.put("ttlMs", tasksInside ? 0 : TOOLS_TTL_MS);
    result.put("cacheScope", tasksInside || auth.enabled() ? "private" : "public");
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Consumer;

/**
 * One request as a method sees it, whatever the era: its id, method, params and caller, and what
 * the transport it came on offers. A session-era request has its session and the stream its answer
 * will come on (where a plain {@code tools/call} sends its progress); a sessionless one has its
 * HTTP request, which a method may answer on a stream of its own.
 *
 * @param owner the owner its tasks carry (null when MCP auth is off)
 * @param session the session (session era), else null
 * @param requestStream where the request's own messages go (session era), else null
 * @param http the HTTP request (sessionless era), else null
 */
record McpCall(
    JsonNode id,
    String method,
    JsonNode params,
    String owner,
    McpSession session,
    Consumer<String> requestStream,
    HttpServletRequest http) {

  /** A request of a session: params absent are an empty object, as the session era has it. */
  static McpCall inSession(McpSession session, JsonNode message, Consumer<String> requestStream) {
    JsonNode params = message.get("params");
    return new McpCall(
        message.get("id"),
        message.path("method").asText(),
        params == null ? Json.MAPPER.createObjectNode() : params,
        session.owner(),
        session,
        requestStream,
        null);
  }

  /** A sessionless request of {@code owner}. */
  static McpCall sessionless(HttpServletRequest http, JsonNode message, String owner) {
    return new McpCall(
        message.get("id"),
        message.get("method").asText(),
        message.get("params"),
        owner,
        null,
        null,
        http);
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.http.CachedBodyRequest;
import io.taskmesh.gateway.http.ParsedBody;
import io.taskmesh.gateway.http.RefusedBodies;
import io.taskmesh.schemas.Json;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Locale;
import java.util.Optional;

/**
 * Checks what the transport specification asks of an MCP request before the servlet reads it, and
 * answers each fault with the JSON-RPC error and HTTP status it names or implies: body over the
 * limit 413, wrong {@code Content-Type} 415, {@code Accept} without what Streamable HTTP requires
 * 406, invalid JSON 400 -32700, not one JSON-RPC message 400 -32600, a {@code tools/call} whose
 * params are malformed -32602. The servlet does the session checks (400 without a session, 404 for
 * an unknown one).
 */
final class McpRequestGuard implements Filter {
  private final String streamablePath;
  private final String messagePath;

  private final long maxBodyBytes;

  McpRequestGuard(String streamablePath, String messagePath, long maxBodyBytes) {
    this.streamablePath = streamablePath;
    this.messagePath = messagePath;
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    boolean streamable = streamablePath.equals(request.getServletPath());
    if ("GET".equals(request.getMethod()) && streamable && !accepts(request, "text/event-stream")) {
      JsonRpcError.transport(
              406,
              JsonRpcError.INVALID_REQUEST,
              "Accept must list text/event-stream to open the stream")
          .writeTo(response);
      return;
    }
    if (!"POST".equals(request.getMethod())
        || !(streamable || messagePath.equals(request.getServletPath()))) {
      chain.doFilter(request, response);
      return;
    }
    Optional<JsonRpcError> refusal = headerFault(request, streamable);
    if (refusal.isPresent()) {
      RefusedBodies.drain(request);
      refusal.get().writeTo(response);
      return;
    }
    byte[] body = readBody(request);
    if (body == null) {
      JsonRpcError.transport(
              413,
              JsonRpcError.INVALID_REQUEST,
              "request body is over the limit of " + maxBodyBytes + " bytes")
          .writeTo(response);
      return;
    }
    JsonNode message = parse(body);
    if (body.length > 0) {
      // the servlet and the metrics filter take the tree from here
      ParsedBody.keep(request, message);
    }
    refusal = messageFault(message, streamable);
    if (refusal.isPresent()) {
      refusal.get().writeTo(response);
      return;
    }
    chain.doFilter(new CachedBodyRequest(request, body), response);
  }

  private Optional<JsonRpcError> headerFault(HttpServletRequest request, boolean streamable) {
    if (request.getContentLengthLong() > maxBodyBytes) {
      return Optional.of(
          JsonRpcError.transport(
              413,
              JsonRpcError.INVALID_REQUEST,
              "request body is over the limit of " + maxBodyBytes + " bytes"));
    }
    String type = request.getContentType();
    String mediaType = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    if (!mediaType.equals("application/json")) {
      return Optional.of(
          JsonRpcError.transport(
              415, JsonRpcError.INVALID_REQUEST, "Content-Type must be application/json"));
    }
    if (streamable
        && !(accepts(request, "application/json") && accepts(request, "text/event-stream"))) {
      return Optional.of(
          JsonRpcError.transport(
              406,
              JsonRpcError.INVALID_REQUEST,
              "Accept must list both application/json and text/event-stream"));
    }
    return Optional.empty();
  }

  /**
   * The body must be one JSON-RPC 2.0 request, notification or response (2025-11-25 has no
   * batches). A malformed {@code tools/call} is refused here too: on Streamable HTTP the error is
   * the request's answer (200), on the old SSE transport answers go to the stream, so the POST
   * itself fails (400) for the client to see it.
   */
  private static Optional<JsonRpcError> messageFault(JsonNode message, boolean streamable) {
    if (message == null || message.isMissingNode()) {
      return Optional.of(
          JsonRpcError.transport(
              400, JsonRpcError.PARSE_ERROR, "Parse error: the body is not valid JSON"));
    }
    if (!message.isObject() || !"2.0".equals(message.path("jsonrpc").asText(null))) {
      return Optional.of(
          JsonRpcError.transport(
              400,
              JsonRpcError.INVALID_REQUEST,
              "Invalid Request: the body must be one JSON-RPC 2.0 message object"));
    }
    JsonNode method = message.get("method");
    boolean response =
        method == null && message.has("id") && (message.has("result") || message.has("error"));
    if (!response && (method == null || !method.isTextual() || method.asText().isEmpty())) {
      return Optional.of(
          JsonRpcError.transport(
              400,
              JsonRpcError.INVALID_REQUEST,
              "Invalid Request: 'method' must be a non-empty string"));
    }
    if (!response && "tools/call".equals(method.asText()) && message.hasNonNull("id")) {
      String fault = toolCallParamsFault(message.get("params"));
      if (fault != null) {
        return Optional.of(
            new JsonRpcError(
                streamable ? 200 : 400,
                message.get("id"),
                JsonRpcError.INVALID_PARAMS,
                "Invalid params: " + fault));
      }
    }
    return Optional.empty();
  }

  /** The body as JSON; null when it is not JSON. */
  private static JsonNode parse(byte[] body) {
    try {
      return Json.MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }

  private static String toolCallParamsFault(JsonNode params) {
    if (params == null || !params.isObject()) {
      return "'params' must be an object with the tool's 'name'";
    }
    JsonNode name = params.get("name");
    if (name == null || !name.isTextual() || name.asText().isBlank()) {
      return "'params.name' must be the name of a tool";
    }
    JsonNode arguments = params.get("arguments");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      return "'params.arguments' must be an object";
    }
    return null;
  }

  /**
   * The body, or null when it is longer than the limit (a chunked body has no Content-Length to
   * check first).
   */
  private byte[] readBody(HttpServletRequest request) throws IOException {
    try (InputStream in = request.getInputStream()) {
      byte[] body = in.readNBytes((int) maxBodyBytes + 1);
      return body.length > maxBodyBytes ? null : body;
    }
  }

  /**
   * Whether Accept lists the type itself: the transport specification asks clients to name both
   * types.
   */
  private static boolean accepts(HttpServletRequest request, String type) {
    for (var values = request.getHeaders("Accept"); values.hasMoreElements(); ) {
      for (String range : values.nextElement().split(",")) {
        if (range.split(";", 2)[0].trim().equalsIgnoreCase(type)) {
          return true;
        }
      }
    }
    return false;
  }
}

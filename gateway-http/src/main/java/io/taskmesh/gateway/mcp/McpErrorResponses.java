package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The outermost filter of every MCP path: whatever answers an error behind it (the auth filter, the
 * request guard, the servlet, Jetty's {@code sendError}), the client gets a JSON-RPC error object
 * with the same HTTP status. A plain-text error body is re-wrapped with its message, and an
 * exception escaping the chain is a bare -32603, so no class name, file name or stack frame reaches
 * a client.
 */
final class McpErrorResponses implements Filter {
  private static final Logger LOG = LoggerFactory.getLogger(McpErrorResponses.class);
  private static final int MAX_MESSAGE_CHARS = 300;
  private static final Pattern INTERNALS =
      Pattern.compile("Exception|\\.java|\\tat |\\bat io\\.|\\bat java\\.");

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletResponse response = (HttpServletResponse) res;
    ErrorCapturingResponse capturing = new ErrorCapturingResponse(response);
    try {
      chain.doFilter(req, capturing);
    } catch (IOException | ServletException | RuntimeException e) {
      LOG.error("MCP request failed", e);
      if (!response.isCommitted()) {
        response.reset();
        JsonRpcError.transport(500, JsonRpcError.INTERNAL_ERROR, "internal error")
            .writeTo(response);
      }
      return;
    }
    if (capturing.failedStatus() != 0 && !response.isCommitted()) {
      response.resetBuffer();
      toJsonRpc(capturing.failedStatus(), capturing.captured()).writeTo(response);
    }
  }

  /**
   * The error for a captured body: kept when it already is a JSON-RPC error, else its message
   * re-wrapped.
   */
  static JsonRpcError toJsonRpc(int status, String body) {
    JsonNode json = parse(body);
    if (json != null
        && json.path("jsonrpc").asText("").equals("2.0")
        && json.path("error").isObject()) {
      JsonNode error = json.get("error");
      return new JsonRpcError(
          status,
          json.get("id"),
          error.path("code").asInt(codeFor(status)),
          safe(error.path("message").asText(""), status),
          error.get("data"));
    }
    // our own filters answer short plain text
    String message = json != null ? json.path("message").asText("") : body.strip();
    return JsonRpcError.transport(status, codeFor(status), safe(message, status));
  }

  /** 5xx is the server's fault; every other transport-level refusal is an invalid request. */
  static int codeFor(int status) {
    return status >= 500 ? JsonRpcError.INTERNAL_ERROR : JsonRpcError.INVALID_REQUEST;
  }

  private static String safe(String message, int status) {
    if (message == null
        || message.isBlank()
        || message.length() > MAX_MESSAGE_CHARS
        || INTERNALS.matcher(message).find()) {
      return reason(status);
    }
    return message;
  }

  private static String reason(int status) {
    return switch (status) {
      case 400 -> "bad request";
      case 401 -> "missing or invalid bearer token";
      case 403 -> "forbidden";
      case 404 -> "session not found"; // the only thing an MCP path can fail to find
      case 405 -> "method not allowed";
      case 406 -> "not acceptable";
      case 413 -> "request body too large";
      case 415 -> "unsupported media type";
      case 503 -> "service unavailable";
      default -> status >= 500 ? "internal error" : "request refused (HTTP " + status + ")";
    };
  }

  private static JsonNode parse(String body) {
    if (body == null || body.isBlank() || body.charAt(0) != '{') {
      return null;
    }
    try {
      return Json.MAPPER.readTree(body);
    } catch (IOException e) {
      return null;
    }
  }
}

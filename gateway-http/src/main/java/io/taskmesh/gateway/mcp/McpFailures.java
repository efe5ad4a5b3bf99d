package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.topology.ViewUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a method that failed is answered, in either era: the JSON-RPC error object, in our own words,
 * and the HTTP status a sessionless answer carries (a session answers in a 200 body or on its
 * stream, whatever the error).
 */
final class McpFailures {
  private static final Logger LOG = LoggerFactory.getLogger(McpFailures.class);

  private McpFailures() {}

  /** The error response to request {@code id} of {@code method} that failed with {@code e}. */
  static JsonRpcError of(JsonNode id, String method, Throwable e) {
    Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    if (cause instanceof McpError err) {
      return new JsonRpcError(statusOf(err.code()), id, err.code(), err.getMessage(), err.data());
    }
    if (cause instanceof TimeoutException) {
      return new JsonRpcError(
          200, id, JsonRpcError.INTERNAL_ERROR, "the task has not stopped yet; poll tasks/get");
    }
    if (cause instanceof ViewUnavailableException) {
      return new JsonRpcError(
          503, id, JsonRpcError.INTERNAL_ERROR, "task store unavailable, retry shortly");
    }
    LOG.error("MCP {} failed", method, cause);
    return new JsonRpcError(500, id, JsonRpcError.INTERNAL_ERROR, "internal error");
  }

  /** A revision no era of ours speaks: -32022 with the ones that {@code supported} lists. */
  static JsonRpcError unsupportedVersion(
      JsonNode id, String requested, Iterable<String> supported) {
    List<String> revisions = new ArrayList<>();
    supported.forEach(revisions::add);
    return new JsonRpcError(
        400,
        id,
        JsonRpcError.UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version: " + requested,
        new UnsupportedVersion(revisions, requested));
  }

  /**
   * The HTTP status of a sessionless error: an unknown method 404 and a request the revision
   * refuses 400, as 2026-07-28 names them; an error of the method itself is the request's answer.
   */
  private static int statusOf(int code) {
    return switch (code) {
      case JsonRpcError.METHOD_NOT_FOUND -> 404;
      case JsonRpcError.HEADER_MISMATCH,
          JsonRpcError.MISSING_CLIENT_CAPABILITY,
          JsonRpcError.UNSUPPORTED_PROTOCOL_VERSION ->
          400;
      default -> 200;
    };
  }

  /** The {@code data} of -32022: the revisions spoken here and the one asked for. */
  record UnsupportedVersion(List<String> supported, String requested) {}
}

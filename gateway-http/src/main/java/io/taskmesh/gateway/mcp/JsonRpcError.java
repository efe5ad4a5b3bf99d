package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import io.taskmesh.gateway.mcp.wire.JsonRpcErrorObject;
import io.taskmesh.gateway.mcp.wire.JsonRpcErrorResponse;
import io.taskmesh.schemas.Json;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A JSON-RPC 2.0 error response, the only body an MCP path answers an error with, and the HTTP
 * status it goes with.
 *
 * @param data the error's {@code data} (a record or a map), or null
 */
record JsonRpcError(int httpStatus, JsonNode id, int code, String message, Object data) {
  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;

  /** 2026-07-28: the request names a protocol revision this server does not implement. */
  static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

  /** 2026-07-28: a required header is missing or does not match the body. */
  static final int HEADER_MISMATCH = -32020;

  /** 2026-07-28: the request needs a client capability the client did not declare. */
  static final int MISSING_CLIENT_CAPABILITY = -32021;

  JsonRpcError(int httpStatus, JsonNode id, int code, String message) {
    this(httpStatus, id, code, message, null);
  }

  /** An error about the HTTP request as a whole: no id (JSON-RPC: null when it cannot be known). */
  static JsonRpcError transport(int httpStatus, int code, String message) {
    return new JsonRpcError(httpStatus, NullNode.getInstance(), code, message);
  }

  /** The error response message. */
  JsonRpcErrorResponse response() {
    return JsonRpcErrorResponse.of(
        id == null ? NullNode.getInstance() : id, new JsonRpcErrorObject(code, message, data));
  }

  String body() {
    return Json.write(response());
  }

  void writeTo(HttpServletResponse response) throws IOException {
    byte[] bytes = body().getBytes(StandardCharsets.UTF_8);
    response.setStatus(httpStatus);
    response.setContentType("application/json");
    response.setCharacterEncoding("UTF-8");
    response.setContentLength(bytes.length);
    response.getOutputStream().write(bytes);
  }
}

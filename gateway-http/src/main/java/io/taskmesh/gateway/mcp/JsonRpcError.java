package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** A JSON-RPC 2.0 error response, the only body an MCP path answers an error with. */
record JsonRpcError(int httpStatus, JsonNode id, int code, String message, JsonNode data) {
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
  ObjectNode json() {
    ObjectNode error = Json.MAPPER.createObjectNode();
    error.put("code", code);
    error.put("message", message);
    if (data != null) {
      error.set("data", data);
    }
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("jsonrpc", "2.0");
    body.set("id", id == null ? NullNode.getInstance() : id);
    body.set("error", error);
    return body;
  }

  String body() {
    return Json.write(json());
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

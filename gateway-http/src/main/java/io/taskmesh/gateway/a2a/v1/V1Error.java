package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;
import java.util.Map;

/**
 * The A2A 1.0 error model (spec 3.3.2, 5.4, 9.5, 11.6): each error by its JSON-RPC code, with the
 * HTTP status and status name of the HTTP+JSON binding, and for the A2A-specific errors the {@code
 * google.rpc.ErrorInfo} reason that goes in {@code error.data} (JSON-RPC) or {@code error.details}
 * (HTTP+JSON).
 */
record V1Error(int httpStatus, String status, String reason) {
  static final String ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
  static final String DOMAIN = "a2a-protocol.org";

  private static final Map<Integer, V1Error> BY_CODE =
      Map.ofEntries(
          Map.entry(A2aException.PARSE_ERROR, new V1Error(400, "INVALID_ARGUMENT", null)),
          Map.entry(A2aException.INVALID_REQUEST, new V1Error(400, "INVALID_ARGUMENT", null)),
          Map.entry(A2aException.METHOD_NOT_FOUND, new V1Error(404, "NOT_FOUND", null)),
          Map.entry(A2aException.INVALID_PARAMS, new V1Error(400, "INVALID_ARGUMENT", null)),
          Map.entry(A2aException.INTERNAL_ERROR, new V1Error(500, "INTERNAL", null)),
          Map.entry(A2aException.TASK_NOT_FOUND, new V1Error(404, "NOT_FOUND", "TASK_NOT_FOUND")),
          Map.entry(
              A2aException.TASK_NOT_CANCELABLE,
              new V1Error(409, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")),
          Map.entry(
              A2aException.PUSH_NOT_SUPPORTED,
              new V1Error(400, "UNIMPLEMENTED", "PUSH_NOTIFICATION_NOT_SUPPORTED")),
          Map.entry(
              A2aException.UNSUPPORTED_OPERATION,
              new V1Error(400, "UNIMPLEMENTED", "UNSUPPORTED_OPERATION")),
          Map.entry(
              A2aException.CONTENT_TYPE_NOT_SUPPORTED,
              new V1Error(415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED")),
          Map.entry(
              A2aException.INVALID_AGENT_RESPONSE,
              new V1Error(502, "INTERNAL", "INVALID_AGENT_RESPONSE")),
          Map.entry(
              A2aException.EXTENDED_CARD_NOT_CONFIGURED,
              new V1Error(400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED")),
          Map.entry(
              A2aException.EXTENSION_SUPPORT_REQUIRED,
              new V1Error(400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED")),
          Map.entry(
              A2aException.VERSION_NOT_SUPPORTED,
              new V1Error(400, "UNIMPLEMENTED", "VERSION_NOT_SUPPORTED")));

  static V1Error of(int code) {
    return BY_CODE.getOrDefault(code, BY_CODE.get(A2aException.INTERNAL_ERROR));
  }

  /**
   * The JSON-RPC {@code error} object; A2A-specific errors carry their ErrorInfo in {@code data}.
   */
  static ObjectNode jsonRpc(A2aException e) {
    ObjectNode error = Json.MAPPER.createObjectNode();
    error.put("code", e.code());
    error.put("message", e.getMessage());
    V1Error kind = of(e.code());
    if (kind.reason() != null) {
      error.set("data", kind.details());
    }
    return error;
  }

  /** The HTTP+JSON body (AIP-193): {@code {"error": {code, status, message, details}}}. */
  static ObjectNode http(A2aException e) {
    V1Error kind = of(e.code());
    ObjectNode body = Json.MAPPER.createObjectNode();
    ObjectNode error = body.putObject("error");
    error.put("code", kind.httpStatus());
    error.put("status", kind.status());
    error.put("message", e.getMessage());
    error.set("details", kind.reason() != null ? kind.details() : Json.MAPPER.createArrayNode());
    return body;
  }

  private ArrayNode details() {
    ArrayNode details = Json.MAPPER.createArrayNode();
    ObjectNode info = details.addObject();
    info.put("@type", ERROR_INFO_TYPE);
    info.put("reason", reason);
    info.put("domain", DOMAIN);
    return details;
  }
}

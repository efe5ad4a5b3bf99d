package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.JsonErrors;
import java.io.IOException;

/** JSON-RPC 2.0 envelopes: parsing a request, building result and error responses. */
public final class JsonRpc {
  private JsonRpc() {}

  /**
   * A parsed request; {@code id} keeps its JSON type (string or number) so it is echoed as sent.
   */
  public record Request(JsonNode id, String method, JsonNode params) {
    public ObjectNode paramsObject() {
      return params == null || params.isNull()
          ? Json.MAPPER.createObjectNode()
          : (ObjectNode) params;
    }
  }

  /**
   * Parses and checks the envelope. Throws {@link A2aException} with -32700 (not JSON) or -32600
   * (not a request object); the id of the failed request, when readable, is in {@link #idOf}.
   */
  public static Request parse(byte[] body) {
    JsonNode node;
    try {
      node = Json.requestTree(body);
    } catch (IOException e) {
      throw new A2aException(A2aException.PARSE_ERROR, "Parse error: " + JsonErrors.describe(e));
    }
    if (node == null || node.isMissingNode()) {
      throw new A2aException(A2aException.PARSE_ERROR, "Parse error: empty body");
    }
    if (!node.isObject()) {
      throw new A2aException(
          A2aException.INVALID_REQUEST,
          node.isArray()
              ? "Invalid Request: batch requests are not supported"
              : "Invalid Request: not an object");
    }
    JsonNode version = node.get("jsonrpc");
    if (version == null || !version.isTextual() || !"2.0".equals(version.asText())) {
      throw new A2aException(
          A2aException.INVALID_REQUEST, "Invalid Request: 'jsonrpc' must be \"2.0\"");
    }
    JsonNode id = node.get("id");
    if (id == null) {
      // a JSON-RPC notification: A2A has none (its request objects require an id, and every
      // method has a result), so it is answered as an invalid request rather than left silent,
      // which would leave a client that forgot the id waiting for nothing
      throw new A2aException(
          A2aException.INVALID_REQUEST,
          "Invalid Request: 'id' is required (A2A methods answer every call; JSON-RPC"
              + " notifications are not served)");
    }
    if (!(id.isTextual() || id.isIntegralNumber())) {
      throw new A2aException(
          A2aException.INVALID_REQUEST, "Invalid Request: 'id' must be a string or an integer");
    }
    JsonNode method = node.get("method");
    if (method == null || !method.isTextual() || method.asText().isEmpty()) {
      throw new A2aException(
          A2aException.INVALID_REQUEST, "Invalid Request: 'method' must be a non-empty string");
    }
    JsonNode params = node.get("params");
    if (params != null && !params.isNull() && !params.isObject()) {
      throw new A2aException(
          A2aException.INVALID_PARAMS, "Invalid params: 'params' must be an object");
    }
    return new Request(id, method.asText(), params);
  }

  /** The id of a request that failed validation: echoed when it is a valid id, else null. */
  public static JsonNode idOf(byte[] body) {
    try {
      JsonNode node = Json.MAPPER.readTree(body);
      JsonNode id = node == null ? null : node.get("id");
      return id != null && (id.isTextual() || id.isIntegralNumber()) ? id : NullNode.getInstance();
    } catch (IOException | RuntimeException e) {
      return NullNode.getInstance();
    }
  }

  /**
   * A result response; {@code result} is a JSON tree or a typed A2A object (null is written as
   * null).
   */
  public static ObjectNode result(JsonNode id, Object result) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("jsonrpc", "2.0");
    out.set("id", id == null ? NullNode.getInstance() : id);
    out.set("result", result == null ? NullNode.getInstance() : Json.tree(result));
    return out;
  }

  public static ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("jsonrpc", "2.0");
    out.set("id", id == null ? NullNode.getInstance() : id);
    ObjectNode error = out.putObject("error");
    error.put("code", code);
    error.put("message", message);
    return out;
  }
}

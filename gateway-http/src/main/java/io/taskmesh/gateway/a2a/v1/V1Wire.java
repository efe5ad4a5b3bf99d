package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.http.Context;
import io.taskmesh.gateway.a2a.A2aWire;
import io.taskmesh.gateway.a2a.JsonRpc;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;

/**
 * The two A2A 1.0 bindings' answers for one method: JSON-RPC 2.0 envelopes, or HTTP+JSON bodies.
 */
final class V1Wire {
  /**
   * Push notifications to configs registered over 1.0 carry a {@code StreamResponse} (spec: the
   * task).
   */
  static final String PUSH_FORM = "a2a-1.0";

  private V1Wire() {}

  /** JSON-RPC: results in the envelope, errors with their ErrorInfo in {@code data} (spec 9.5). */
  static A2aWire jsonRpc(V1Method method) {
    return new A2aWire() {
      @Override
      public void reply(Context ctx, JsonNode requestId, JsonNode result) {
        write(ctx, 200, JsonRpc.result(requestId, method.out().apply(orNull(result))));
      }

      @Override
      public void error(Context ctx, JsonNode requestId, A2aException e) {
        write(ctx, 200, jsonRpcError(requestId, e));
      }

      @Override
      public String event(JsonNode requestId, JsonNode result) {
        return Json.write(JsonRpc.result(requestId, V1Objects.streamResponse(result)));
      }

      @Override
      public String errorEvent(JsonNode requestId, A2aException e) {
        return Json.write(jsonRpcError(requestId, e));
      }

      @Override
      public boolean errorsAsEvents() {
        // a stream that cannot start answers one plain JSON-RPC error (application/json), as the
        // A2A SDK servers do: clients read an error before the stream as the call's failure
        return false;
      }

      @Override
      public String pushForm() {
        return PUSH_FORM;
      }
    };
  }

  /** HTTP+JSON: the object itself, errors as AIP-193 bodies with their HTTP status (spec 11.6). */
  static A2aWire http(V1Method method) {
    return new A2aWire() {
      @Override
      public void reply(Context ctx, JsonNode requestId, JsonNode result) {
        write(ctx, 200, method.out().apply(orNull(result)));
      }

      @Override
      public void error(Context ctx, JsonNode requestId, A2aException e) {
        httpError(ctx, e);
      }

      @Override
      public String event(JsonNode requestId, JsonNode result) {
        return Json.write(V1Objects.streamResponse(result));
      }

      @Override
      public String errorEvent(JsonNode requestId, A2aException e) {
        return Json.write(V1Error.http(e));
      }

      @Override
      public boolean errorsAsEvents() {
        return false; // a stream that cannot start answers its HTTP error status
      }

      @Override
      public String pushForm() {
        return PUSH_FORM;
      }
    };
  }

  static ObjectNode jsonRpcError(JsonNode requestId, A2aException e) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("jsonrpc", "2.0");
    out.set("id", requestId == null ? NullNode.getInstance() : requestId);
    out.set("error", V1Error.jsonRpc(e));
    return out;
  }

  static void httpError(Context ctx, A2aException e) {
    write(ctx, V1Error.of(e.code()).httpStatus(), V1Error.http(e));
  }

  private static JsonNode orNull(JsonNode result) {
    return result == null ? NullNode.getInstance() : result;
  }

  private static void write(Context ctx, int status, JsonNode body) {
    ctx.status(status).contentType("application/json").result(Json.write(body));
  }
}

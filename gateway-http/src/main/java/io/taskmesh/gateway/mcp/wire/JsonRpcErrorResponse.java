package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * A JSON-RPC error response. Ours rather than the SDK's {@code JSONRPCResponse}, which leaves out a
 * null {@code id}: JSON-RPC wants it written as null when the request's id could not be known.
 *
 * @param id the request's id as it came (a string or a number); null: written as null
 */
public record JsonRpcErrorResponse(
    String jsonrpc, @JsonInclude(JsonInclude.Include.ALWAYS) Object id, JsonRpcErrorObject error) {
  public static JsonRpcErrorResponse of(Object id, JsonRpcErrorObject error) {
    return new JsonRpcErrorResponse("2.0", id, error);
  }
}

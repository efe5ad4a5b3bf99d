package io.taskmesh.gateway.mcp.wire;

/**
 * A JSON-RPC success response. Ours rather than the SDK's {@code JSONRPCResponse}, which takes only
 * a string or an integer id: a client's id goes back exactly as it came, whatever JSON it was.
 *
 * @param id the request's id as it came
 * @param result the method's result, a record Jackson writes
 */
public record JsonRpcResult(String jsonrpc, Object id, Object result) {
  public static JsonRpcResult of(Object id, Object result) {
    return new JsonRpcResult("2.0", id, result);
  }
}

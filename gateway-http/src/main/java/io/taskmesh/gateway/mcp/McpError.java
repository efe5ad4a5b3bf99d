package io.taskmesh.gateway.mcp;

/** A JSON-RPC error a method handler answers with (code and a message safe for the client). */
final class McpError extends RuntimeException {
  private final int code;

  McpError(int code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  int code() {
    return code;
  }

  static McpError invalidParams(String message) {
    return new McpError(JsonRpcError.INVALID_PARAMS, message);
  }
}

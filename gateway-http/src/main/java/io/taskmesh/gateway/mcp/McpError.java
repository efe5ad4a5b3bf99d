package io.taskmesh.gateway.mcp;

/** A JSON-RPC error a method handler answers with (code and a message safe for the client). */
final class McpError extends RuntimeException {
  private final int code;
  private final transient Object data;

  McpError(int code, String message) {
    this(code, message, null);
  }

  McpError(int code, String message, Object data) {
    super(message, null, false, false);
    this.code = code;
    this.data = data;
  }

  int code() {
    return code;
  }

  /** The error's {@code data} member (a record or a map), or null. */
  Object data() {
    return data;
  }

  static McpError invalidParams(String message) {
    return new McpError(JsonRpcError.INVALID_PARAMS, message);
  }
}

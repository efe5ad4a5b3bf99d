package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The {@code error} object of JSON-RPC: of an error response, or as a failed task of the tasks
 * extension inlines it.
 *
 * @param data what the error adds for a program to read (a record or a map); null: absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record JsonRpcErrorObject(int code, String message, Object data) {
  public JsonRpcErrorObject(int code, String message) {
    this(code, message, null);
  }
}

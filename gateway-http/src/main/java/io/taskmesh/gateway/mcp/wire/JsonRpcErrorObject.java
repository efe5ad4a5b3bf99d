package io.taskmesh.gateway.mcp.wire;

/** The {@code error} object of JSON-RPC, as a failed task of the tasks extension inlines it. */
public record JsonRpcErrorObject(int code, String message) {}

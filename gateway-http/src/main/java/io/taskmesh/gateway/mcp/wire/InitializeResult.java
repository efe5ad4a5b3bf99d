package io.taskmesh.gateway.mcp.wire;

import io.modelcontextprotocol.spec.McpSchema.Implementation;

/**
 * The session era's {@code initialize} answer. The SDK's own result would hold its {@code
 * ServerCapabilities}, which cannot say {@code tasks}; the server's identity is the SDK's.
 */
public record InitializeResult(
    String protocolVersion,
    ServerCapabilities capabilities,
    Implementation serverInfo,
    String instructions) {}

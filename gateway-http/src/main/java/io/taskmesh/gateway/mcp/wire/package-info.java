/**
 * The MCP messages the gateway writes, as records: the shapes the SDK's schema types do not match
 * on the wire (the 2025-11-25 {@code Task}, the 2026-07-28 tasks extension, tool results whose
 * content a handler chose). Jackson and the JDK only: nothing of the gateway is imported here, so
 * the shapes can be read, and tested, apart from the code that fills them.
 */
package io.taskmesh.gateway.mcp.wire;

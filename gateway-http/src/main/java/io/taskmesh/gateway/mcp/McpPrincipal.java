package io.taskmesh.gateway.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.Map;

/**
 * Carries the authenticated MCP client, and the client's trace context, from the servlet filters
 * into tool handlers (which the SDK may run on another thread).
 */
final class McpPrincipal {
  static final String ATTRIBUTE = "taskmesh.mcp.principal";
  private static final String TRACE_CONTEXT = "taskmesh.trace.context";

  private McpPrincipal() {}

  /** The transport context of a request: the principal the auth filter stored, if any. */
  static McpTransportContext extract(HttpServletRequest request) {
    Object principal = request.getAttribute(ATTRIBUTE);
    Map<String, Object> values = new HashMap<>();
    if (principal != null) {
      values.put(ATTRIBUTE, principal);
    }
    values.put(TRACE_CONTEXT, Context.current());
    return McpTransportContext.create(values);
  }

  /** Makes the request's trace context current in the tool handler's thread; close it after. */
  static Scope trace(McpTransportContext context) {
    Object c = context == null ? null : context.get(TRACE_CONTEXT);
    return c instanceof Context trace ? trace.makeCurrent() : Scope.noop();
  }

  static String of(McpTransportContext context) {
    Object p = context == null ? null : context.get(ATTRIBUTE);
    return p == null ? null : p.toString();
  }
}

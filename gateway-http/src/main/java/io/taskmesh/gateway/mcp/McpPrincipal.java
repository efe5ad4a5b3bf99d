package io.taskmesh.gateway.mcp;

import io.modelcontextprotocol.common.McpTransportContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.Map;

/** Carries the authenticated MCP client from the servlet filter into tool handlers. */
final class McpPrincipal {
  static final String ATTRIBUTE = "taskmesh.mcp.principal";

  private McpPrincipal() {}

  /** The transport context of a request: the principal the auth filter stored, if any. */
  static McpTransportContext extract(HttpServletRequest request) {
    Object principal = request.getAttribute(ATTRIBUTE);
    Map<String, Object> values = new HashMap<>();
    if (principal != null) {
      values.put(ATTRIBUTE, principal);
    }
    return McpTransportContext.create(values);
  }

  static String of(McpTransportContext context) {
    Object p = context == null ? null : context.get(ATTRIBUTE);
    return p == null ? null : p.toString();
  }
}

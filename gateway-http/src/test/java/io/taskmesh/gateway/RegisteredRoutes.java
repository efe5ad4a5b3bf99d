package io.taskmesh.gateway;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.taskmesh.gateway.mcp.McpEndpoints;
import java.util.Set;
import java.util.TreeSet;

/**
 * The routes a gateway app answers, as {@code "GET /path"}: Javalin's own route list plus the MCP
 * SDK servlets, which sit on the servlet context beside Javalin and so are not in that list.
 */
final class RegisteredRoutes {
  private static final Set<HandlerType> METHODS =
      Set.of(
          HandlerType.GET,
          HandlerType.POST,
          HandlerType.PUT,
          HandlerType.PATCH,
          HandlerType.DELETE,
          HandlerType.HEAD);

  private RegisteredRoutes() {}

  static Set<String> of(Javalin app, GatewayMode mode) {
    Set<String> routes = new TreeSet<>();
    app.unsafe.internalRouter.allHttpHandlers().stream()
        .map(parsed -> parsed.endpoint)
        .filter(e -> METHODS.contains(e.method))
        .forEach(e -> routes.add(e.method.name() + " " + e.path));
    if (mode.servesApi()) {
      routes.add("POST " + McpEndpoints.STREAMABLE_PATH);
      routes.add("GET " + McpEndpoints.STREAMABLE_PATH);
      routes.add("DELETE " + McpEndpoints.STREAMABLE_PATH);
      routes.add("GET " + McpEndpoints.SSE_PATH);
      routes.add("POST " + McpEndpoints.MESSAGE_PATH);
    }
    return routes;
  }
}

package io.taskmesh.gateway.mcp;

import io.taskmesh.gateway.McpAuth;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Authenticates MCP transport requests before the SDK sees them (Javalin's before-handlers do not
 * run for servlets), and binds each Streamable HTTP session to the principal that opened it: the
 * SDK does not, so without this another client could use a session id it learnt.
 */
final class McpAuthFilter implements Filter {
  static final String SESSION_HEADER = "Mcp-Session-Id";
  private final McpAuth auth;
  private final Map<String, String> sessionOwners = new ConcurrentHashMap<>();

  McpAuthFilter(McpAuth auth) {
    this.auth = auth;
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    Optional<String> principal = auth.authenticate(request.getHeader("Authorization"));
    if (principal.isEmpty()) {
      response.setHeader("WWW-Authenticate", auth.wwwAuthenticate());
      response.setStatus(401);
      response.setContentType("text/plain");
      response.getWriter().write("missing or invalid bearer token");
      return;
    }
    String who = principal.get();
    String session = request.getHeader(SESSION_HEADER);
    if (session != null
        && sessionOwners.containsKey(session)
        && !Objects.equals(sessionOwners.get(session), who)) {
      response.setStatus(404); // as for an unknown session: do not reveal that it exists
      response.setContentType("text/plain");
      response.getWriter().write("session not found");
      return;
    }
    if ("DELETE".equals(request.getMethod()) && session != null) {
      sessionOwners.remove(session);
    }
    request.setAttribute(McpServlet.PRINCIPAL, who);
    chain.doFilter(
        request,
        new HttpServletResponseWrapper(response) {
          @Override
          public void setHeader(String name, String value) {
            bind(name, value, who);
            super.setHeader(name, value);
          }

          @Override
          public void addHeader(String name, String value) {
            bind(name, value, who);
            super.addHeader(name, value);
          }
        });
  }

  private void bind(String header, String value, String who) {
    if (SESSION_HEADER.equalsIgnoreCase(header) && value != null) {
      sessionOwners.putIfAbsent(value, who);
    }
  }
}

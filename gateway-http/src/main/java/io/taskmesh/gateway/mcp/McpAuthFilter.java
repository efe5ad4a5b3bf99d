package io.taskmesh.gateway.mcp;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Optional;

/**
 * Authenticates MCP transport requests before anything else reads them (Javalin's before-handlers
 * do not run for servlets), and refuses a session another principal opened (its {@link
 * McpSession#owner()}) as if it did not exist, before the request checks run: a client that learnt
 * another's session id cannot use it.
 */
final class McpAuthFilter implements Filter {
  static final String SESSION_HEADER = "Mcp-Session-Id";
  private final McpAuth auth;
  private final McpSessions sessions;

  McpAuthFilter(McpAuth auth, McpSessions sessions) {
    this.auth = auth;
    this.sessions = sessions;
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
    // with auth off every client is the same anonymous one: no session is anyone else's
    if (auth.enabled()
        && sessions
            .ownerOf(request.getHeader(SESSION_HEADER))
            .filter(owner -> !owner.equals(who))
            .isPresent()) {
      response.setStatus(404); // as for an unknown session: do not reveal that it exists
      response.setContentType("text/plain");
      response.getWriter().write("session not found");
      return;
    }
    request.setAttribute(McpServlet.PRINCIPAL, who);
    chain.doFilter(request, response);
  }
}

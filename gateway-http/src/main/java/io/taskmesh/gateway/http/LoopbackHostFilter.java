package io.taskmesh.gateway.http;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;

/**
 * DNS-rebinding protection for every route of a gateway bound to loopback (issue 33 item 6). A web
 * page whose name an attacker re-points at 127.0.0.1 reaches a local gateway from the victim's
 * browser, and with auth off (as in dev) could start and read tasks through {@code /tools/call},
 * {@code /a2a/} or {@code /tasks}. As {@code /mcp} already did, the Host header must be one of
 * {@code SVC_MCP_ALLOWED_HOSTS} (421 otherwise) and an Origin, when sent, one of {@code
 * SVC_MCP_ALLOWED_ORIGINS} (403). {@code /mcp} keeps its own check, which answers in JSON-RPC.
 */
public final class LoopbackHostFilter implements Filter {
  private final HostCheck check;

  public LoopbackHostFilter(HostCheck check) {
    this.check = check;
  }

  /** Whether {@code host} (the listen address) only takes connections from this machine. */
  public static boolean isLoopback(String host) {
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException | SecurityException e) {
      return false;
    }
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    if (request.getRequestURI().startsWith("/mcp")) {
      chain.doFilter(req, res);
      return;
    }
    boolean hostAllowed = check.hostAllowed(request.getHeader("Host"));
    if (hostAllowed && check.originAllowed(request.getHeader("Origin"))) {
      chain.doFilter(req, res);
      return;
    }
    RefusedBodies.drain(request);
    HttpServletResponse response = (HttpServletResponse) res;
    response.setStatus(hostAllowed ? 403 : 421);
    response.setContentType("text/plain;charset=utf-8");
    response
        .getOutputStream()
        .write(
            (hostAllowed
                    ? "Origin not allowed (DNS-rebinding protection; see SVC_MCP_ALLOWED_ORIGINS)"
                    : "Host not allowed (DNS-rebinding protection; see SVC_MCP_ALLOWED_HOSTS)")
                .getBytes(StandardCharsets.UTF_8));
  }
}

package io.taskmesh.gateway.a2a;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Javalin's SSE handler only streams to requests that accept {@code text/event-stream}; whether an
 * A2A POST streams depends on its JSON-RPC method, known only after the body is read. So the POST
 * is presented as accepting event streams and the client's own {@code Accept} is kept in the
 * request attribute {@value #ORIGINAL_ACCEPT}.
 */
final class A2aAcceptFilter implements Filter {
  static final String ORIGINAL_ACCEPT = "taskmesh.a2a.accept";
  private static final String EVENT_STREAM = "text/event-stream";

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    if (!"POST".equals(http.getMethod())) {
      chain.doFilter(request, response);
      return;
    }
    String accept = http.getHeader("Accept");
    http.setAttribute(ORIGINAL_ACCEPT, accept == null ? "" : accept);
    chain.doFilter(
        new HttpServletRequestWrapper(http) {
          @Override
          public String getHeader(String name) {
            return "Accept".equalsIgnoreCase(name) ? EVENT_STREAM : super.getHeader(name);
          }

          @Override
          public Enumeration<String> getHeaders(String name) {
            return "Accept".equalsIgnoreCase(name)
                ? Collections.enumeration(List.of(EVENT_STREAM))
                : super.getHeaders(name);
          }
        },
        response);
  }
}

package io.taskmesh.gateway.http;

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
 * Javalin only streams SSE to clients that send {@code Accept: text/event-stream}; our stream
 * routes are SSE whatever the client sends (plain {@code curl} sends {@code Accept: *}/{@code *}),
 * so for those paths the request is presented as accepting event streams.
 */
public final class SseAcceptFilter implements Filter {
  static final String EVENT_STREAM = "text/event-stream";

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    boolean isStream = "GET".equals(http.getMethod()) && isStreamPath(http.getRequestURI());
    chain.doFilter(isStream ? new AcceptsEventStream(http) : request, response);
  }

  static boolean isStreamPath(String path) {
    return path.startsWith("/stream/") || (path.startsWith("/mesh/") && path.endsWith("/stream"));
  }

  private static final class AcceptsEventStream extends HttpServletRequestWrapper {
    AcceptsEventStream(HttpServletRequest request) {
      super(request);
    }

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
  }
}

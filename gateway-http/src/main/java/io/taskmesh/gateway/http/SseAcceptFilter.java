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
import java.util.function.Predicate;

/**
 * Javalin only streams SSE to requests that send {@code Accept: text/event-stream}. Some of our
 * routes must be able to stream whatever the client sends, so the requests they take are presented
 * as accepting event streams; the client's own {@code Accept} stays readable in the request
 * attribute {@value #ORIGINAL_ACCEPT} for a route that decides later whether to stream.
 *
 * <ul>
 *   <li>{@link #streamRoutes()}: the REST task streams are SSE whatever the client sends (plain
 *       {@code curl} sends {@code Accept: *}/{@code *}).
 *   <li>{@link #posts()}: whether an A2A POST streams depends on its JSON-RPC method, known only
 *       after the body is read.
 * </ul>
 */
public final class SseAcceptFilter implements Filter {
  /** The request attribute that holds the client's own Accept ({@code ""} when it sent none). */
  public static final String ORIGINAL_ACCEPT = "taskmesh.original-accept";

  static final String EVENT_STREAM = "text/event-stream";

  private final Predicate<HttpServletRequest> applies;

  private SseAcceptFilter(Predicate<HttpServletRequest> applies) {
    this.applies = applies;
  }

  /** GET of a REST task stream: {@code /stream/{id}} and {@code /mesh/{id}/stream}. */
  public static SseAcceptFilter streamRoutes() {
    return new SseAcceptFilter(r -> "GET".equals(r.getMethod()) && isStreamPath(r.getRequestURI()));
  }

  /** Every POST of the paths the filter is mapped on. */
  public static SseAcceptFilter posts() {
    return new SseAcceptFilter(r -> "POST".equals(r.getMethod()));
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) request;
    if (!applies.test(http)) {
      chain.doFilter(request, response);
      return;
    }
    String accept = http.getHeader("Accept");
    http.setAttribute(ORIGINAL_ACCEPT, accept == null ? "" : accept);
    chain.doFilter(new AcceptsEventStream(http), response);
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

package io.taskmesh.gateway;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.taskmesh.servicekit.trace.Tracing;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.Collections;

/**
 * A client's W3C trace context ({@code traceparent}/{@code tracestate} request headers) made the
 * current context while its request is handled, so a task started by any route (tools/call, MCP,
 * A2A) continues the client's trace ({@link TaskTracing}). A request without them, or with a
 * malformed {@code traceparent}, runs under the empty context: the task starts a trace of its own.
 */
final class TraceContextFilter implements Filter {
  private static final TextMapGetter<HttpServletRequest> HEADERS =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(HttpServletRequest request) {
          return Collections.list(request.getHeaderNames());
        }

        @Override
        public String get(HttpServletRequest request, String key) {
          return request == null ? null : request.getHeader(key);
        }
      };

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (!(req instanceof HttpServletRequest http) || http.getHeader("traceparent") == null) {
      chain.doFilter(req, res);
      return;
    }
    Context client = Tracing.current().propagator().extract(Context.root(), http, HEADERS);
    try (Scope ignored = client.makeCurrent()) {
      chain.doFilter(req, res);
    }
  }
}

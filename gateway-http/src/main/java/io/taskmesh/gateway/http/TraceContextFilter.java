package io.taskmesh.gateway.http;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.taskmesh.servicekit.trace.TraceHeaders;
import io.taskmesh.servicekit.trace.Tracing;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A client's W3C trace context ({@code traceparent}/{@code tracestate} request headers) made the
 * current context while its request is handled, so a task started by any route (tools/call, MCP,
 * A2A) continues the client's trace ({@code TaskTracing}). A request without them, or with a
 * malformed {@code traceparent}, runs under the empty context: the task starts a trace of its own.
 */
public final class TraceContextFilter implements Filter {
  @Override
  // the resource is a scope: it does its work when it closes, the body never names it
  @SuppressWarnings("try")
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    String traceparent =
        req instanceof HttpServletRequest http ? http.getHeader(TraceHeaders.TRACEPARENT) : null;
    if (traceparent == null) {
      chain.doFilter(req, res);
      return;
    }
    // the W3C propagator reads these two headers only
    Map<String, String> headers = new HashMap<>(4);
    headers.put(TraceHeaders.TRACEPARENT, traceparent);
    String tracestate = ((HttpServletRequest) req).getHeader(TraceHeaders.TRACESTATE);
    if (tracestate != null) {
      headers.put(TraceHeaders.TRACESTATE, tracestate);
    }
    Context client = TraceHeaders.extract(Tracing.current(), headers);
    try (Scope ignored = client.makeCurrent()) {
      chain.doFilter(req, res);
    }
  }
}

package io.taskmesh.gateway.http;

import io.taskmesh.servicekit.logging.LogContext;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Puts the task id of a task route ({@code /tasks/{id}}, {@code /mesh/{id}/...}, {@code
 * /stream/{id}}) and the trace id of the request's {@code traceparent} into the log MDC for the
 * request's thread, so the log lines it causes carry them. Filter-level: no route changes.
 */
public final class LogContextFilter implements Filter {
  private static final Pattern TASK_PATH =
      Pattern.compile("^/(?:tasks|mesh|stream)/([0-9A-Za-z][0-9A-Za-z._-]{0,127})(?:/|$)");

  @Override
  // the resource is a scope: it does its work when it closes, the body never names it
  @SuppressWarnings("try")
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest http = (HttpServletRequest) req;
    Matcher m = TASK_PATH.matcher(http.getRequestURI());
    String taskId = m.find() ? m.group(1) : null;
    try (LogContext.Scope scope = LogContext.open(taskId, null, http.getHeader("traceparent"))) {
      chain.doFilter(req, res);
    }
  }
}

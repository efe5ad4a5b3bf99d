package io.taskmesh.gateway.mcp;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/** Ends a legacy SSE session with its stream: that transport has no way to resume one. */
final class SessionCloser implements AsyncListener {
  private final McpSessions sessions;
  private final McpSession session;

  SessionCloser(McpSessions sessions, McpSession session) {
    this.sessions = sessions;
    this.session = session;
  }

  @Override
  public void onComplete(AsyncEvent event) {
    sessions.close(session);
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    sessions.close(session);
  }

  @Override
  public void onError(AsyncEvent event) {
    sessions.close(session);
  }

  @Override
  public void onStartAsync(AsyncEvent event) {}
}

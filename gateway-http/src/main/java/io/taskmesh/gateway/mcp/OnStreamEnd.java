package io.taskmesh.gateway.mcp;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;

/**
 * Runs one action when the container ends an async response, however it ends (completed, client
 * gone, error, timeout): the MCP streams each have something to let go of then.
 */
final class OnStreamEnd implements AsyncListener {
  private final Runnable action;

  OnStreamEnd(Runnable action) {
    this.action = action;
  }

  @Override
  public void onComplete(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onError(AsyncEvent event) {
    action.run();
  }

  @Override
  public void onStartAsync(AsyncEvent event) {}
}

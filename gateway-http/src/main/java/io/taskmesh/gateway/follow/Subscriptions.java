package io.taskmesh.gateway.follow;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closing feed subscriptions, which cannot fail in a way anyone could act on: the REST stream, A2A
 * and MCP all close theirs through here.
 */
public final class Subscriptions {
  private static final Logger LOG = LoggerFactory.getLogger(Subscriptions.class);

  private Subscriptions() {}

  public static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      // unsubscribing cannot fail in a way the client could act on
      LOG.debug("closing a feed subscription: {}", e.getMessage());
    }
  }
}

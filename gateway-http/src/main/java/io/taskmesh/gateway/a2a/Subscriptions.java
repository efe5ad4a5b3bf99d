package io.taskmesh.gateway.a2a;

/** Closing feed subscriptions, which cannot fail in a way anyone could act on. */
final class Subscriptions {
  private Subscriptions() {}

  static void closeQuietly(AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception ignored) {
      // unsubscribing cannot fail in a way the client could act on
    }
  }
}

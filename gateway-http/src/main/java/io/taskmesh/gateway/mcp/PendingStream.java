package io.taskmesh.gateway.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Where a request's own messages go before the stream its answer will come on exists: a request
 * starts sending (progress of a plain {@code tools/call}) while it is dispatched, and only once it
 * turns out to wait does the servlet open its stream. Messages sent before then are held and handed
 * over, in order, when the stream is attached. A request answered at once with nothing held is
 * answered as plain JSON; one that sent something first is answered on its stream all the same, so
 * nothing it sent is lost (a flow that ends before the answer is written still reports its
 * progress).
 */
final class PendingStream implements Consumer<String> {
  private List<String> held = new ArrayList<>();
  private Consumer<String> target;

  @Override
  public synchronized void accept(String message) {
    if (target != null) {
      target.accept(message);
    } else {
      held.add(message);
    }
  }

  /** Whether anything was sent before a stream was attached. */
  synchronized boolean holdsAny() {
    return !held.isEmpty();
  }

  /** From now on messages go to {@code to}; the ones held so far go first. */
  synchronized void attach(Consumer<String> to) {
    held.forEach(to);
    held = List.of();
    target = to;
  }
}

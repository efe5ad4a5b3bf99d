package io.taskmesh.kvconnector;

import io.vertx.core.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Collects the requests one event-loop pass reads and hands them on together when the pass ends:
 * the first request of a pass queues a task on the loop, which runs after the loop has handled
 * every connection that was ready. Touched by its loop's thread only. Hands on at most {@link
 * #MAX_BATCH} at a time, and counts the batches and requests (benchmark, tests).
 */
final class PassBatcher<T> {
  /**
   * A pass rarely holds more requests than the loop has client connections; this bounds one
   * message.
   */
  static final int MAX_BATCH = 64;

  private final Context context;
  private final Consumer<List<T>> send;
  private final LongAdder batches;
  private final LongAdder items;
  private final List<T> pending = new ArrayList<>();

  PassBatcher(Context context, Consumer<List<T>> send, LongAdder batches, LongAdder items) {
    this.context = context;
    this.send = send;
    this.batches = batches;
    this.items = items;
  }

  void add(T item) {
    pending.add(item);
    if (pending.size() == 1) {
      context.runOnContext(v -> sendPending());
    }
  }

  private void sendPending() {
    List<T> all = new ArrayList<>(pending);
    pending.clear();
    for (int from = 0; from < all.size(); from += MAX_BATCH) {
      List<T> batch = all.subList(from, Math.min(all.size(), from + MAX_BATCH));
      batches.increment();
      items.add(batch.size());
      send.accept(batch);
    }
  }
}

package io.taskmesh.servicekit.sse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A client that records what reached it, one line per frame ({@code event id data} or {@code
 * :comment}). Like the gateway's Javalin sink it gathers frames and sends them at {@link #flush()}:
 * a frame is in {@link #lines} only once flushed; {@link #flushSizes} keeps how many each flush
 * sent.
 */
final class RecordingSink implements SseSink {
  final List<String> lines = new CopyOnWriteArrayList<>();
  final List<Integer> flushSizes = new CopyOnWriteArrayList<>();
  private final List<String> pending = new ArrayList<>();
  volatile boolean open = true;
  volatile int closes;
  volatile boolean failWrites;

  @Override
  public void event(String event, String data, String id) throws IOException {
    if (failWrites) {
      throw new IOException("broken pipe");
    }
    pending.add(event + " " + id + " " + data);
  }

  @Override
  public void comment(String text) {
    pending.add(":" + text);
  }

  @Override
  public void retry(long millis) {
    pending.add("retry " + millis);
  }

  @Override
  public void flush() {
    if (!pending.isEmpty()) {
      lines.addAll(pending);
      flushSizes.add(pending.size());
      pending.clear();
    }
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
    closes++;
  }
}

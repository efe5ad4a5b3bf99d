package io.taskmesh.servicekit.sse;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A client that records what it was sent, one line per frame ({@code event id data} or {@code
 * :comment}).
 */
final class RecordingSink implements SseSink {
  final List<String> lines = new CopyOnWriteArrayList<>();
  volatile boolean open = true;
  volatile int closes;
  volatile boolean failWrites;

  @Override
  public void event(String event, String data, String id) throws IOException {
    if (failWrites) {
      throw new IOException("broken pipe");
    }
    lines.add(event + " " + id + " " + data);
  }

  @Override
  public void comment(String text) {
    lines.add(":" + text);
  }

  @Override
  public void retry(long millis) {
    lines.add("retry " + millis);
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

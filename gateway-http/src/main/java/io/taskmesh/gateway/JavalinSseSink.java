package io.taskmesh.gateway;

import io.javalin.http.sse.SseClient;
import io.taskmesh.servicekit.sse.SseSink;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A Javalin SSE client as the kit's {@link SseSink}. Javalin swallows a failed write (it marks the
 * client terminated and returns), so each write checks that afterwards and throws: the writer then
 * ends the stream and unsubscribes it on the first failed write, not on the next one.
 */
public record JavalinSseSink(SseClient client) implements SseSink {
  @Override
  public void event(String event, String data, String id) throws IOException {
    ensureOpen();
    if (event == null) {
      // Javalin's sendEvent requires a name; sendData writes the data (and id) lines only
      client.sendData(data, id);
    } else {
      client.sendEvent(event, data, id);
    }
    ensureWritten();
  }

  @Override
  public void comment(String text) throws IOException {
    ensureOpen();
    client.sendComment(text);
    ensureWritten();
  }

  /** Javalin's client has no retry field: written on its response stream, between two frames. */
  @Override
  public void retry(long millis) throws IOException {
    ensureOpen();
    OutputStream out = client.ctx().res().getOutputStream();
    out.write(("retry: " + millis + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  @Override
  public boolean isOpen() {
    return !client.terminated();
  }

  @Override
  public void close() {
    client.close();
  }

  private void ensureOpen() throws IOException {
    if (client.terminated()) {
      throw new IOException("SSE client already closed");
    }
  }

  private void ensureWritten() throws IOException {
    if (client.terminated()) {
      throw new IOException("SSE client gone: the write failed");
    }
  }
}

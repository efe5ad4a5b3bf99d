package io.taskmesh.gateway;

import io.javalin.http.sse.SseClient;
import io.taskmesh.servicekit.sse.SseSink;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** A Javalin SSE client as the kit's {@link SseSink}. */
public record JavalinSseSink(SseClient client) implements SseSink {
  @Override
  public void event(String event, String data, String id) {
    if (event == null) {
      // Javalin's sendEvent requires a name; sendData writes the data (and id) lines only
      client.sendData(data, id);
    } else {
      client.sendEvent(event, data, id);
    }
  }

  @Override
  public void comment(String text) {
    client.sendComment(text);
  }

  /** Javalin's client has no retry field: written on its response stream, between two frames. */
  @Override
  public void retry(long millis) throws IOException {
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
}

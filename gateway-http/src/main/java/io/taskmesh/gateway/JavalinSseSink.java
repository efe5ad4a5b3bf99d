package io.taskmesh.gateway;

import io.javalin.http.sse.SseClient;
import io.taskmesh.servicekit.sse.SseSink;

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

  @Override
  public boolean isOpen() {
    return !client.terminated();
  }

  @Override
  public void close() {
    client.close();
  }
}

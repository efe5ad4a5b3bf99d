package io.taskmesh.gateway.http;

import io.taskmesh.servicekit.sse.SseSink;
import jakarta.servlet.AsyncContext;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A servlet's async response as the kit's {@link SseSink}, for streams served outside Javalin
 * (MCP): the frames of one burst are gathered and written at the writer's flush. An event with
 * empty data is a stream's priming event (MCP Streamable HTTP, "Resumability and Redelivery"): it
 * also carries the {@code retry:} field, so a client knows how soon to reconnect.
 */
public final class AsyncSseSink implements SseSink {
  private final AsyncContext context;
  private final long retryMillis;
  private final StringBuilder pending = new StringBuilder();
  private volatile boolean open = true;

  public AsyncSseSink(AsyncContext context, long retryMillis) {
    this.context = context;
    this.retryMillis = retryMillis;
  }

  @Override
  public void event(String event, String data, String id) {
    if (id != null) {
      pending.append("id: ").append(id).append('\n');
    }
    if (event != null) {
      pending.append("event: ").append(event).append('\n');
    }
    if (data.isEmpty()) {
      pending.append("retry: ").append(retryMillis).append("\ndata: \n");
    } else {
      data.lines().forEach(line -> pending.append("data: ").append(line).append('\n'));
    }
    pending.append('\n');
  }

  @Override
  public void comment(String text) {
    for (String line : text.split("\n", -1)) {
      pending.append(": ").append(line).append('\n');
    }
    pending.append('\n');
  }

  @Override
  public void retry(long millis) {
    pending.append("retry: ").append(millis).append("\n\n");
  }

  @Override
  public void flush() throws IOException {
    if (pending.isEmpty()) {
      return;
    }
    byte[] bytes = pending.toString().getBytes(StandardCharsets.UTF_8);
    pending.setLength(0);
    try {
      OutputStream out = context.getResponse().getOutputStream();
      out.write(bytes);
      out.flush();
    } catch (IOException | IllegalStateException e) {
      open = false; // the client went away, or the container already ended the response
      throw e instanceof IOException io ? io : new IOException("SSE response already ended", e);
    }
  }

  @Override
  public boolean isOpen() {
    return open;
  }

  @Override
  public void close() {
    open = false;
    try {
      context.complete();
    } catch (IllegalStateException alreadyEnded) {
      // the container ended the response first (client gone, server stopping)
    }
  }
}

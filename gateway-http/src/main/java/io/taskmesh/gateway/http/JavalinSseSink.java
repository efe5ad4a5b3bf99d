package io.taskmesh.gateway.http;

import io.javalin.http.sse.SseClient;
import io.taskmesh.servicekit.sse.SseSink;
import jakarta.servlet.ServletOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.ee10.servlet.HttpOutput;

/**
 * A Javalin SSE client as the kit's {@link SseSink}. Frames are encoded here; the frames of one
 * burst (between two of the writer's flushes) go to Jetty as one {@code ByteBuffer} write, which
 * Jetty sends at once without copying it into the response's output buffer. That buffer (32 KB,
 * direct, outside the heap) is taken on a response's first aggregated write and kept until the
 * response ends: Javalin's own emitter writes every field of a frame separately, so every open
 * stream held one for its whole life, which made open streams the largest part of the gateway's
 * resident memory (docs/bench/gateway-http.md, {@code SseStreamsBench}). A failed write throws, so
 * the writer ends the stream and unsubscribes it on the first failed write (Javalin's emitter
 * swallows it). The wire format is Javalin's: {@code id:}, {@code event:}, one {@code data:} line
 * per line of data, a blank line; a comment is one {@code : } line per line.
 */
public final class JavalinSseSink implements SseSink {
  private final SseClient client;

  /** Frames handed over since the last flush; null when none (nothing held between bursts). */
  private StringBuilder pending;

  public JavalinSseSink(SseClient client) {
    this.client = client;
  }

  @Override
  public void event(String event, String data, String id) throws IOException {
    StringBuilder frame = new StringBuilder(data.length() + 64);
    if (id != null) {
      frame.append("id: ").append(singleLine(id)).append('\n');
    }
    if (event != null) {
      frame.append("event: ").append(singleLine(event)).append('\n');
    }
    data.lines().forEach(line -> frame.append("data: ").append(line).append('\n'));
    frame.append('\n');
    write(frame);
  }

  @Override
  public void comment(String text) throws IOException {
    StringBuilder frame = new StringBuilder(text.length() + 4);
    for (String line : text.split("\n", -1)) {
      frame.append(": ").append(line).append('\n');
    }
    write(frame);
  }

  /** Javalin's client has no retry field: written on its response stream, between two frames. */
  @Override
  public void retry(long millis) throws IOException {
    write("retry: " + millis + "\n\n");
  }

  @Override
  public boolean isOpen() {
    return !client.terminated();
  }

  @Override
  public void close() {
    client.close();
  }

  /** Gathers a frame; the writer's {@link #flush()} sends all gathered frames as one write. */
  private void write(CharSequence frame) throws IOException {
    if (client.terminated()) {
      throw new IOException("SSE client already closed");
    }
    if (pending == null) {
      pending = new StringBuilder(frame);
    } else {
      pending.append(frame);
    }
  }

  @Override
  public void flush() throws IOException {
    if (pending == null) {
      return;
    }
    String frames = pending.toString();
    pending = null;
    if (client.terminated()) {
      throw new IOException("SSE client already closed");
    }
    byte[] bytes = frames.getBytes(StandardCharsets.UTF_8);
    ServletOutputStream out = client.ctx().res().getOutputStream();
    if (out instanceof HttpOutput jetty) {
      // blocking, written through before it returns; never aggregated, so no buffer is held.
      // (write(byte[]) would aggregate below the buffer size, and above it would split the frame
      // into buffer-sized writes)
      jetty.write(ByteBuffer.wrap(bytes));
    } else {
      out.write(bytes);
      out.flush();
    }
  }

  private static String singleLine(String field) {
    return field.replace("\r", "").replace("\n", "");
  }
}

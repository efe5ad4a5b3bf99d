package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.servicekit.Threads;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The runtime's {@code /invoke} over its Unix socket: one connection per message (spec), a tiny
 * HTTP/1.1 client on the JDK's Unix-domain {@link SocketChannel} (no pooling, so the JDK's
 * channel is the fastest option measured here). Accepts the JSON form and the streaming form
 * ({@code text/event-stream}), handing FLY frames to a callback as soon as they arrive.
 */
public final class RuntimeClient implements AutoCloseable {
  public static final String READY_FILE = "runtime-ready";
  private static final Duration READY_POLL = Duration.ofMillis(500);

  private final Path socketPath;
  private final ScheduledExecutorService timer = Threads.scheduler("runtime-call-timer");

  public RuntimeClient(Path socketPath) {
    this.socketPath = socketPath;
  }

  public Path socketPath() {
    return socketPath;
  }

  /**
   * Polls the ready file every 500 ms, then waits until the socket accepts a connection.
   *
   * @throws IllegalStateException when the runtime is not ready within {@code timeout}
   */
  public void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Path ready = socketPath.resolveSibling(READY_FILE);
    while (!Files.exists(ready) || !canConnect()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("runtime not ready within " + timeout + ": no " + ready
            + " or no connection on " + socketPath);
      }
      sleep(READY_POLL);
    }
  }

  public boolean canConnect() {
    try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.connect(UnixDomainSocketAddress.of(socketPath));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** The request body of {@code /invoke}: the envelope subset {id, route, payload, headers}. */
  public static byte[] invokeBody(Envelope e) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("id", e.id());
    body.set("route", Json.tree(e.route()));
    body.set("payload", e.payload());
    body.set("headers", Json.tree(e.headers()));
    return Json.bytes(body);
  }

  /** Calls {@code POST /invoke}; never throws: every way it can end is an {@link InvokeResult}. */
  public InvokeResult invoke(byte[] body, Duration timeout, Consumer<JsonNode> onFly) {
    long start = System.nanoTime();
    AtomicBoolean timedOut = new AtomicBoolean();
    SocketChannel ch;
    try {
      ch = SocketChannel.open(StandardProtocolFamily.UNIX);
      ch.connect(UnixDomainSocketAddress.of(socketPath));
    } catch (IOException e) {
      return new InvokeResult.Unavailable("cannot connect to " + socketPath + ": " + e);
    }
    // A blocking read is cut by closing the channel from the timer thread.
    ScheduledFuture<?> cut = timer.schedule(() -> {
      timedOut.set(true);
      closeQuietly(ch);
    }, Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
    try {
      writeRequest(ch, body);
      return readResponse(new BufferedInputStream(Channels.newInputStream(ch), 16 * 1024), onFly);
    } catch (IOException e) {
      if (timedOut.get()) {
        return new InvokeResult.TimedOut((System.nanoTime() - start) / 1_000_000);
      }
      return new InvokeResult.Unavailable("runtime connection lost: " + e);
    } finally {
      cut.cancel(false);
      closeQuietly(ch);
    }
  }

  private static void writeRequest(SocketChannel ch, byte[] body) throws IOException {
    String head = "POST /invoke HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        + "Accept: text/event-stream, application/json\r\nConnection: close\r\nContent-Length: "
        + body.length + "\r\n\r\n";
    ByteBuffer[] bufs = {ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)), ByteBuffer.wrap(body)};
    long total = bufs[0].remaining() + (long) bufs[1].remaining();
    long written = 0;
    while (written < total) {
      written += ch.write(bufs);
    }
  }

  private InvokeResult readResponse(InputStream in, Consumer<JsonNode> onFly) throws IOException {
    String statusLine = readLine(in);
    if (statusLine == null) {
      throw new EOFException("runtime closed the connection before answering");
    }
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
      return new InvokeResult.ProtocolError("not an HTTP response: " + abbreviate(statusLine));
    }
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      return new InvokeResult.ProtocolError("bad HTTP status line: " + abbreviate(statusLine));
    }
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(in); line != null && !line.isEmpty(); line = readLine(in)) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
      }
    }
    String type = headers.getOrDefault("content-type", "");
    if (status == 200 && type.startsWith("text/event-stream")) {
      return readEventStream(in, onFly);
    }
    byte[] body = readBody(in, headers);
    return switch (status) {
      case 200 -> frames(body, onFly);
      case 204 -> new InvokeResult.Empty();
      case 400, 413, 500 -> error(status, body); // 413: body above the runtime's limit (msg_parsing_error)
      default -> new InvokeResult.ProtocolError("unexpected HTTP status " + status + ": "
          + abbreviate(new String(body, StandardCharsets.UTF_8)));
    };
  }

  private static InvokeResult frames(byte[] body, Consumer<JsonNode> onFly) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (IOException e) {
      return new InvokeResult.ProtocolError("200 body is not JSON: " + e.getMessage());
    }
    if (root == null || !root.path("frames").isArray()) {
      return new InvokeResult.ProtocolError("200 body has no 'frames' array");
    }
    for (JsonNode fly : root.path("fly")) {
      onFly.accept(fly);
    }
    List<InvokeResult.Frame> out = new ArrayList<>();
    for (JsonNode f : root.get("frames")) {
      out.add(frame(f));
    }
    if (out.isEmpty()) {
      return new InvokeResult.ProtocolError("200 with an empty 'frames' array");
    }
    return new InvokeResult.Frames(out);
  }

  private static InvokeResult error(int status, byte[] body) {
    try {
      JsonNode root = Json.MAPPER.readTree(body);
      String code = root == null ? null : root.path("error").asText(null);
      if (code == null) {
        return new InvokeResult.ProtocolError(status + " without an 'error' code");
      }
      return new InvokeResult.RuntimeError(status, code, root.get("details"));
    } catch (IOException e) {
      return new InvokeResult.ProtocolError(status + " body is not JSON: " + e.getMessage());
    }
  }

  /** Events {@code fly}, {@code frame}, {@code error}, {@code end}; the body ends when the runtime closes. */
  private static InvokeResult readEventStream(InputStream in, Consumer<JsonNode> onFly) throws IOException {
    List<InvokeResult.Frame> out = new ArrayList<>();
    String event = "message";
    StringBuilder data = new StringBuilder();
    for (String line = readLine(in); line != null; line = readLine(in)) {
      if (line.isEmpty()) {
        if (data.length() > 0) {
          JsonNode json;
          try {
            json = Json.MAPPER.readTree(data.toString());
          } catch (IOException e) {
            return new InvokeResult.ProtocolError("event '" + event + "' data is not JSON");
          }
          switch (event) {
            case "fly" -> onFly.accept(json);
            case "frame" -> out.add(frame(json));
            case "error" -> {
              return new InvokeResult.RuntimeError(json.path("status").asInt(500),
                  json.path("error").asText("processing_error"), json.get("details"));
            }
            case "end" -> {
              return out.isEmpty() ? new InvokeResult.Empty() : new InvokeResult.Frames(out);
            }
            default -> { } // unknown events are ignored, as SSE clients do
          }
        }
        event = "message";
        data.setLength(0);
      } else if (line.startsWith("event:")) {
        event = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data.append(line.substring(5).stripLeading());
      }
    }
    throw new EOFException("event stream closed without an 'end' event");
  }

  private static InvokeResult.Frame frame(JsonNode f) {
    Route route = f.hasNonNull("route") ? Json.MAPPER.convertValue(f.get("route"), Route.class) : null;
    @SuppressWarnings("unchecked")
    Map<String, Object> headers = f.hasNonNull("headers") ? Json.MAPPER.convertValue(f.get("headers"), Map.class)
        : null; // no headers in the frame: the envelope keeps the received ones
    return new InvokeResult.Frame(f.get("payload"), route, headers);
  }

  private static byte[] readBody(InputStream in, Map<String, String> headers) throws IOException {
    String length = headers.get("content-length");
    if (length != null) {
      return in.readNBytes(Integer.parseInt(length));
    }
    if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      while (true) {
        String size = readLine(in);
        if (size == null) {
          throw new EOFException("chunked body cut");
        }
        int n = Integer.parseInt(size.split(";")[0].trim(), 16);
        if (n == 0) {
          return out.toByteArray();
        }
        out.write(in.readNBytes(n));
        readLine(in);
      }
    }
    return in.readAllBytes(); // Connection: close delimits the body
  }

  /** One CRLF- or LF-terminated line, or null at end of stream. */
  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    int b;
    while ((b = in.read()) != -1) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int len = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, len, StandardCharsets.UTF_8);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }

  private static void closeQuietly(SocketChannel ch) {
    try {
      ch.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the runtime", e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}

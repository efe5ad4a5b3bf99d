package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.unixhttp.HttpResponseReader;
import io.taskmesh.unixhttp.SseParser;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The runtime's {@code /invoke} over its Unix socket: one connection per message (spec), through
 * the unix-http client's one-off {@link UnixHttpClient#exchange exchange} (the call's timeout is
 * the exchange's deadline). Accepts the JSON form and the reference runtime's event stream ({@code
 * text/event-stream}, parsed by {@link SseParser}), handing FLY objects to a callback as soon as
 * they arrive.
 */
public final class RuntimeClient implements AutoCloseable {
  public static final String READY_FILE = "runtime-ready";
  private static final Logger LOG = LoggerFactory.getLogger(RuntimeClient.class);
  private static final Duration READY_POLL = Duration.ofMillis(500);
  static final Duration READY_LOG_EVERY = Duration.ofSeconds(5);

  private static final Map<String, String> INVOKE_HEADERS =
      Map.of("Content-Type", "application/json", "Accept", "text/event-stream, application/json");

  private final Path socketPath;
  private final UnixHttpClient http;

  public RuntimeClient(Path socketPath) {
    this.socketPath = socketPath;
    this.http = new UnixHttpClient(socketPath);
  }

  public Path socketPath() {
    return socketPath;
  }

  /**
   * Polls the ready file every 500 ms, then waits until the socket accepts a connection. Says what
   * it waits for every {@link #READY_LOG_EVERY}, so a wrong socket name or directory shows in the
   * log at once rather than at the timeout.
   *
   * @throws IllegalStateException when the runtime is not ready within {@code timeout}; the message
   *     names the ready file, the socket and the sockets found beside it
   */
  public void awaitReady(Duration timeout) {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long nextLog = start + READY_LOG_EVERY.toNanos();
    Path ready = readyFile();
    while (!Files.exists(ready) || !canConnect()) {
      long now = System.nanoTime();
      if (now > deadline) {
        throw new IllegalStateException(
            "runtime not ready within " + timeout + ": " + waitingFor());
      }
      if (now >= nextLog) {
        LOG.info(
            "waiting for the runtime ({} s of {}): {}",
            Duration.ofNanos(now - start).toSeconds(),
            timeout,
            waitingFor());
        nextLog = now + READY_LOG_EVERY.toNanos();
      }
      sleep(READY_POLL);
    }
  }

  private Path readyFile() {
    return socketPath.resolveSibling(READY_FILE);
  }

  /** What is missing right now, with a hint when another socket sits in the directory. */
  String waitingFor() {
    Path ready = readyFile();
    StringBuilder s = new StringBuilder();
    s.append("ready file ").append(ready).append(Files.exists(ready) ? " present" : " missing");
    s.append(", socket ")
        .append(socketPath)
        .append(
            canConnect()
                ? " accepts connections"
                : Files.exists(socketPath) ? " refuses connections" : " missing");
    List<String> others = otherSockets();
    if (!others.isEmpty()) {
      s.append("; other sockets in ")
          .append(socketPath.getParent())
          .append(": ")
          .append(String.join(", ", others))
          .append(" (the socket name is SVC_SOCKET_NAME, the directory SVC_SOCKET_DIR)");
    }
    return s.toString();
  }

  private List<String> otherSockets() {
    Path dir = socketPath.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files
          .filter(p -> !p.equals(socketPath) && p.getFileName().toString().endsWith(".sock"))
          .map(p -> p.getFileName().toString())
          .sorted()
          .toList();
    } catch (IOException e) {
      return List.of();
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
    try {
      return http.exchange(
          "POST",
          "/invoke",
          INVOKE_HEADERS,
          body,
          Duration.ofMillis(Math.max(1, timeout.toMillis())),
          (head, response) -> answer(head, response, onFly));
    } catch (UnixHttpClient.NotConnectedException e) {
      return new InvokeResult.Unavailable(e.getMessage());
    } catch (UnixHttpClient.TimeoutException e) {
      return new InvokeResult.TimedOut((System.nanoTime() - start) / 1_000_000);
    } catch (HttpResponseReader.ProtocolException e) {
      return new InvokeResult.ProtocolError("not an HTTP response: " + e.getMessage());
    } catch (IOException e) {
      // the task's error text: our words, not a Java class name
      return new InvokeResult.Unavailable(
          "runtime connection lost: "
              + (e.getMessage() != null ? e.getMessage() : "the connection failed"));
    }
  }

  private static InvokeResult answer(
      HttpResponseReader.Head head, HttpResponseReader response, Consumer<JsonNode> onFly)
      throws IOException {
    int status = head.status();
    String type = head.headers().getOrDefault("content-type", "");
    if (status == 200 && type.startsWith("text/event-stream")) {
      return readEventStream(new SseParser(response.rest(), false), onFly);
    }
    byte[] body = response.readBody(head);
    return switch (status) {
      case 200 -> frames(body);
      case 204 -> new InvokeResult.Empty();
      case 400, 413, 500 ->
          error(status, body); // 413: body above the runtime's limit (msg_parsing_error)
      default ->
          new InvokeResult.ProtocolError(
              "unexpected HTTP status "
                  + status
                  + ": "
                  + abbreviate(new String(body, StandardCharsets.UTF_8)));
    };
  }

  private static InvokeResult frames(byte[] body) {
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(body);
    } catch (IOException e) {
      return new InvokeResult.ProtocolError("200 body is not JSON: " + e.getMessage());
    }
    if (root == null || !root.path("frames").isArray()) {
      return new InvokeResult.ProtocolError("200 body has no 'frames' array");
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

  /**
   * The reference runtime's event stream: {@code upstream} ({@code {"payload": fly}}), {@code
   * downstream} (one frame), {@code error} ({@code {"error", "details"}}) and {@code done}. An
   * {@code error} decides the call at once, whatever follows it (the reference sends {@code done}
   * after it); {@code done} without any {@code downstream} is the no-output case.
   */
  private static InvokeResult readEventStream(SseParser events, Consumer<JsonNode> onFly)
      throws IOException {
    List<InvokeResult.Frame> out = new ArrayList<>();
    for (SseParser.Event e = events.next(); e != null; e = events.next()) {
      if (e.data().isEmpty()) {
        continue;
      }
      JsonNode json;
      try {
        json = Json.MAPPER.readTree(e.data());
      } catch (IOException notJson) {
        return new InvokeResult.ProtocolError("event '" + e.event() + "' data is not JSON");
      }
      switch (e.event()) {
        case "upstream" -> {
          if (!json.has("payload")) {
            return new InvokeResult.ProtocolError("'upstream' event without a 'payload'");
          }
          onFly.accept(json.get("payload"));
        }
        case "downstream" -> out.add(frame(json));
        case "error" -> {
          return new InvokeResult.RuntimeError(
              json.path("status").asInt(500),
              json.path("error").asText("processing_error"),
              json.get("details"));
        }
        case "done" -> {
          return out.isEmpty() ? new InvokeResult.Empty() : new InvokeResult.Frames(out);
        }
        default -> {} // unknown events are ignored, as SSE clients do
      }
    }
    throw new EOFException("event stream closed without a 'done' or 'error' event");
  }

  private static InvokeResult.Frame frame(JsonNode f) {
    Route route =
        f.hasNonNull("route") ? Json.MAPPER.convertValue(f.get("route"), Route.class) : null;
    @SuppressWarnings("unchecked")
    Map<String, Object> headers =
        f.hasNonNull("headers")
            ? Json.MAPPER.convertValue(f.get("headers"), Map.class)
            : null; // no headers in the frame: the envelope keeps the received ones
    return new InvokeResult.Frame(f.get("payload"), route, headers);
  }

  private static String abbreviate(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
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
    http.close();
  }
}

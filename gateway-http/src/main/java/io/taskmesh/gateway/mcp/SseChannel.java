package io.taskmesh.gateway.mcp;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One server-sent event stream of an MCP session. Every event carries an id ({@code
 * <stream>:<seq>}) and the last {@link #KEPT} events are kept, so a client whose connection broke
 * reconnects with {@code Last-Event-ID} and gets what it missed on the same stream (Streamable
 * HTTP, "Resumability and Redelivery"). At most one connection is attached at a time; events sent
 * while none is are kept for the next.
 */
final class SseChannel {
  /** How long a client waits before it reconnects, sent with the priming event. */
  static final long RETRY_MS = 1000;

  private static final int KEPT = 512;

  private record Event(long seq, String name, String data) {}

  private final String id;
  private final boolean named;
  private final Deque<Event> kept = new ArrayDeque<>();
  private long next;
  private long delivered;
  private AsyncContext attached;
  private boolean finished;

  /**
   * @param named whether events carry {@code event: message} (the legacy SSE transport names them)
   */
  SseChannel(String id, boolean named) {
    this.id = id;
    this.named = named;
  }

  String id() {
    return id;
  }

  /** The sequence number in an event id of this stream, or -1 when the id is another stream's. */
  long seqOf(String eventId) {
    if (eventId == null || !eventId.startsWith(id + ":")) {
      return -1;
    }
    try {
      return Long.parseLong(eventId.substring(id.length() + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /**
   * Attaches a connection: the response headers, the priming event (an id and empty data, with
   * {@code retry}) on a fresh stream, then every kept event after {@code after}.
   */
  synchronized void attach(AsyncContext context, long after, boolean prime) {
    completeQuietly();
    HttpServletResponse response = (HttpServletResponse) context.getResponse();
    response.setStatus(200);
    response.setContentType("text/event-stream");
    response.setCharacterEncoding("UTF-8");
    response.setHeader("Cache-Control", "no-cache");
    context.setTimeout(0);
    context.addListener(new OnStreamEnd(() -> detached(context)));
    attached = context;
    StringBuilder out = new StringBuilder();
    if (prime) {
      out.append("id: ").append(id).append(":0\nretry: ").append(RETRY_MS).append("\ndata: \n\n");
    }
    for (Event e : kept) {
      if (e.seq() > after) {
        format(out, e);
      }
    }
    if (write(out.toString())) {
      delivered = next;
    }
    if (finished) {
      completeQuietly();
    }
  }

  /**
   * Attaches a new connection (no {@code Last-Event-ID}): primed, then the events no connection has
   * had yet.
   */
  synchronized void attachFresh(AsyncContext context) {
    attach(context, delivered, !named);
  }

  /** Writes raw SSE text (the legacy transport's {@code endpoint} event) without keeping it. */
  synchronized void writeRaw(String text) {
    write(text);
  }

  /** Sends one JSON-RPC message as the next event. */
  synchronized void send(String json) {
    Event e = new Event(++next, "message", json);
    kept.addLast(e);
    while (kept.size() > KEPT) {
      kept.removeFirst();
    }
    StringBuilder out = new StringBuilder();
    format(out, e);
    if (write(out.toString())) {
      delivered = e.seq();
    }
  }

  /** Sends the message and ends the stream (a request's answer on its own stream). */
  synchronized void sendLast(String json) {
    send(json);
    finished = true;
    completeQuietly();
  }

  /** A comment line, so dead connections are noticed and proxies keep the stream open. */
  synchronized void keepAlive() {
    write(": keepalive\n\n");
  }

  synchronized boolean isAttached() {
    return attached != null;
  }

  synchronized void close() {
    finished = true;
    completeQuietly();
  }

  private void format(StringBuilder out, Event e) {
    out.append("id: ").append(id).append(':').append(e.seq()).append('\n');
    if (named) {
      out.append("event: ").append(e.name()).append('\n');
    }
    out.append("data: ").append(e.data()).append("\n\n");
  }

  /** Whether the text reached an attached connection. */
  private boolean write(String text) {
    if (attached == null) {
      return false;
    }
    try {
      OutputStream out = attached.getResponse().getOutputStream();
      out.write(text.getBytes(StandardCharsets.UTF_8));
      out.flush();
      return true;
    } catch (IOException | IllegalStateException e) {
      completeQuietly(); // the client went away: keep the events for its reconnect
      return false;
    }
  }

  private void completeQuietly() {
    AsyncContext context = attached;
    attached = null;
    if (context != null) {
      try {
        context.complete();
      } catch (IllegalStateException e) {
        // already completed by the container
      }
    }
  }

  private synchronized void detached(AsyncContext context) {
    if (attached == context) {
      attached = null;
    }
  }
}

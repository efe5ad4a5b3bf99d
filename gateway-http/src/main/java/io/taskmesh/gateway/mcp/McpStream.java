package io.taskmesh.gateway.mcp;

import io.taskmesh.gateway.http.AsyncSseSink;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriters;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * One server-sent event stream of MCP. Every event carries an id ({@code <stream>:<seq>}) and the
 * last {@link #KEPT} events are kept, so a client whose connection broke reconnects with {@code
 * Last-Event-ID} and gets what it missed on the same stream (Streamable HTTP, "Resumability and
 * Redelivery"). At most one connection is attached at a time, written by the kit's {@link
 * SseWriter}: senders only queue, and never wait for a slow client; events sent while no connection
 * is attached are kept for the next.
 */
final class McpStream {
  /** How long a client waits before it reconnects, sent with the priming event. */
  static final long RETRY_MS = 1000;

  private static final int KEPT = 512;

  private record Event(long seq, String data) {}

  private final String id;
  private final boolean named;
  private final SseWriters writers;
  private final Deque<Event> kept = new ArrayDeque<>();
  private long next;
  private long delivered;
  private SseWriter attached;
  private boolean finished;

  /**
   * @param named whether events carry {@code event: message} (the legacy SSE transport names them)
   * @param writers the writer threads of MCP's streams
   */
  McpStream(String id, boolean named, SseWriters writers) {
    this.id = id;
    this.named = named;
    this.writers = writers;
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
   * Attaches a connection in place of the one attached before: the response headers (sent at once,
   * so the client knows the stream is open before its first event), the priming event (an id and
   * empty data, with {@code retry}) on a fresh stream, then every kept event after {@code after}.
   */
  void attach(AsyncContext context, long after, boolean prime) {
    HttpServletResponse response = (HttpServletResponse) context.getResponse();
    response.setStatus(200);
    response.setContentType("text/event-stream");
    response.setCharacterEncoding("UTF-8");
    response.setHeader("Cache-Control", "no-cache");
    context.setTimeout(0);
    try {
      response.flushBuffer();
    } catch (IOException clientGone) {
      context.complete();
      return;
    }
    attachWriter(context, after, prime);
  }

  private synchronized void attachWriter(AsyncContext context, long after, boolean prime) {
    detach();
    SseWriter[] self = new SseWriter[1];
    SseWriter writer = writers.open(new AsyncSseSink(context, RETRY_MS), () -> detached(self[0]));
    self[0] = writer;
    context.addListener(new OnStreamEnd(writer::close));
    attached = writer;
    if (prime) {
      writer.send(new SseWriter.Frame(null, "", id + ":0", false, false));
    }
    for (Event e : kept) {
      if (e.seq() > after) {
        writer.send(frame(e));
      }
    }
    delivered = next;
    if (finished) {
      writer.finish();
    }
  }

  /**
   * Attaches a new connection (no {@code Last-Event-ID}): primed, then the events no connection has
   * had yet.
   */
  void attachFresh(AsyncContext context) {
    long after;
    synchronized (this) {
      after = delivered;
    }
    attach(context, after, !named);
  }

  /**
   * Sends an event to the attached connection only, without an id and without keeping it (the
   * legacy transport's {@code endpoint} event).
   */
  synchronized void sendUnkept(String event, String data) {
    if (attached != null) {
      attached.send(SseWriter.Frame.of(event, data));
    }
  }

  /** Sends one JSON-RPC message as the next event. */
  synchronized void send(String json) {
    Event e = new Event(++next, json);
    kept.addLast(e);
    while (kept.size() > KEPT) {
      kept.removeFirst();
    }
    if (attached != null && attached.send(frame(e))) {
      delivered = e.seq();
    }
  }

  /** Sends the message and ends the stream (a request's answer on its own stream). */
  synchronized void sendLast(String json) {
    send(json);
    close();
  }

  synchronized boolean isAttached() {
    return attached != null;
  }

  /** Ends the stream once what is queued is written; a connection attached later ends at once. */
  synchronized void close() {
    finished = true;
    if (attached != null) {
      attached.finish();
    }
  }

  private SseWriter.Frame frame(Event e) {
    return new SseWriter.Frame(
        named ? "message" : null, e.data(), id + ":" + e.seq(), false, false);
  }

  /** Ends the attached connection now: another takes its place. */
  private void detach() {
    SseWriter writer = attached;
    attached = null;
    if (writer != null) {
      writer.close();
    }
  }

  private synchronized void detached(SseWriter writer) {
    if (attached == writer) {
      attached = null;
    }
  }
}

package io.taskmesh.unixhttp;

import java.io.IOException;
import java.io.InputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A small blocking HTTP/1.1 client over a Unix domain socket (JDK {@link SocketChannel} + {@link
 * UnixDomainSocketAddress}, no native code) with a keep-alive connection pool. Thread-safe: each
 * call takes an idle connection (or opens one), sends the request, reads the whole response ({@link
 * HttpResponseReader}: Content-Length, chunked, to-EOF, 1xx skipped) and gives the connection back
 * when the response allows reuse.
 *
 * <p>A pooled connection the server has closed meanwhile (idle timeout, restart) fails before any
 * response byte arrives; such a request is sent again once on a new connection, but only when it is
 * retryable (by default GET and HEAD; callers may mark a read-only POST retryable). Other requests
 * fail with the I/O error, since the server may have acted on them. Connections idle longer than
 * {@link Options#maxIdle} are closed instead of reused, so the server's idle timeout (longer)
 * rarely hits a pooled one.
 */
public final class UnixHttpClient implements AutoCloseable {
  /** Client settings. */
  public record Options(
      Duration timeout, Duration maxIdle, int maxIdleConnections, int maxResponseBytes) {
    public static Options defaults() {
      return new Options(Duration.ofSeconds(10), Duration.ofSeconds(20), 64, 64 * 1024 * 1024);
    }

    public Options withTimeout(Duration t) {
      return new Options(t, maxIdle, maxIdleConnections, maxResponseBytes);
    }
  }

  /** The server did not answer within the timeout (the connection was closed). */
  public static final class TimeoutException extends IOException {
    public TimeoutException(String message) {
      super(message);
    }
  }

  /** No connection could be made (no server on the socket): the request was never sent. */
  public static final class NotConnectedException extends IOException {
    public NotConnectedException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * Reads one response on its own connection: its head is read, its body is the handler's to read.
   */
  @FunctionalInterface
  public interface ResponseHandler<T> {
    T handle(HttpResponseReader.Head head, HttpResponseReader body) throws IOException;
  }

  private static final byte[] EMPTY = new byte[0];

  private final UnixDomainSocketAddress address;
  private final Options options;
  private final ConcurrentLinkedDeque<Conn> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private final AtomicInteger opened = new AtomicInteger();
  private volatile boolean closed;

  public UnixHttpClient(Path socket) {
    this(socket, Options.defaults());
  }

  public UnixHttpClient(Path socket, Options options) {
    this.address = UnixDomainSocketAddress.of(socket);
    this.options = options;
  }

  /** Connections opened so far (for tests and benchmarks: reuse means this stays small). */
  public int connectionsOpened() {
    return opened.get();
  }

  public HttpResponse send(String method, String target, Map<String, String> headers, byte[] body)
      throws IOException {
    return send(method, target, headers, body, isSafe(method));
  }

  /**
   * Sends one request. {@code target} is the path and query, already percent-encoded (ASCII).
   * {@code retryable}: may be sent again when a pooled connection turns out to be closed.
   */
  public HttpResponse send(
      String method, String target, Map<String, String> headers, byte[] body, boolean retryable)
      throws IOException {
    if (closed) {
      throw new IOException("client closed");
    }
    byte[] head = head(method, target, headers, body);
    byte[] payload = body == null ? EMPTY : body;
    boolean head_ = "HEAD".equals(method);
    while (true) {
      Conn c = pooled();
      boolean reused = c != null;
      if (c == null) {
        c = open();
      }
      try {
        HttpResponse r = exchange(c, head, payload, head_);
        release(c, r.reusable());
        return r;
      } catch (DeadlinePassed e) {
        c.close();
        throw timeout(method, target);
      } catch (HttpResponseReader.NoResponseException | ClosedChannelException e) {
        c.close();
        if (!(reused && retryable) || e instanceof ClosedByInterruptException) {
          throw e;
        }
        // a stale pooled connection: try again (the loop takes the next idle one or opens one)
      } catch (IOException | RuntimeException e) {
        c.close();
        if (reused && retryable && e instanceof IOException && !c.gotBytes && isStale(e)) {
          continue;
        }
        throw e;
      }
    }
  }

  /**
   * One request on a connection of its own ({@code Connection: close}), never pooled nor retried:
   * for answers read while they are written (an event stream). The whole exchange, handler
   * included, must end within {@code timeout}: every wait of the handler's reads counts against it.
   *
   * @throws NotConnectedException when no connection could be made
   * @throws TimeoutException when the deadline passed
   */
  public <T> T exchange(
      String method,
      String target,
      Map<String, String> headers,
      byte[] body,
      Duration timeout,
      ResponseHandler<T> handler)
      throws IOException {
    Map<String, String> all = new LinkedHashMap<>(headers == null ? Map.of() : headers);
    all.put("Connection", "close");
    byte[] head = head(method, target, all, body);
    Conn c;
    try {
      c = open();
    } catch (IOException e) {
      throw new NotConnectedException("cannot connect to " + address.getPath() + ": " + e, e);
    }
    try {
      c.deadline = System.nanoTime() + timeout.toNanos();
      c.write(head, body == null ? EMPTY : body);
      return handler.handle(c.reader.readHead(), c.reader);
    } catch (DeadlinePassed e) {
      throw new TimeoutException(
          method + " " + target + ": no complete answer within " + timeout.toMillis() + " ms");
    } finally {
      c.close();
    }
  }

  /**
   * A connection's wait reached the exchange's deadline ({@link #send} names the request in the
   * {@link TimeoutException}).
   */
  private static final class DeadlinePassed extends IOException {
    DeadlinePassed() {
      super("deadline passed");
    }
  }

  private TimeoutException timeout(String method, String target) {
    return new TimeoutException(
        method + " " + target + ": no answer within " + options.timeout().toMillis() + " ms");
  }

  private static boolean isStale(Throwable e) {
    // a write into a connection the peer closed: EPIPE / ECONNRESET
    String m = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
    return m.contains("broken pipe") || m.contains("connection reset");
  }

  static boolean isSafe(String method) {
    return "GET".equals(method) || "HEAD".equals(method) || "OPTIONS".equals(method);
  }

  /**
   * The request line and headers; {@code Host} and {@code Content-Length} (for a body) are added.
   */
  static byte[] head(String method, String target, Map<String, String> headers, byte[] body) {
    StringBuilder sb = new StringBuilder(128 + target.length());
    sb.append(method).append(' ').append(target).append(" HTTP/1.1\r\nHost: localhost\r\n");
    boolean hasType = false;
    if (headers != null) {
      for (Map.Entry<String, String> h : headers.entrySet()) {
        String name = h.getKey();
        checkToken(name, h.getValue());
        if (name.equalsIgnoreCase("content-type")) {
          hasType = true;
        }
        sb.append(name).append(": ").append(h.getValue()).append("\r\n");
      }
    }
    if (body != null) {
      if (!hasType) {
        sb.append("Content-Type: application/json\r\n");
      }
      sb.append("Content-Length: ").append(body.length).append("\r\n");
    } else if ("POST".equals(method) || "PUT".equals(method)) {
      sb.append("Content-Length: 0\r\n");
    }
    sb.append("\r\n");
    for (int i = 0; i < target.length(); i++) {
      char ch = target.charAt(i);
      if (ch <= ' ' || ch >= 0x7f) {
        throw new IllegalArgumentException(
            "request target must be percent-encoded ASCII: " + target);
      }
    }
    return sb.toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static void checkToken(String name, String value) {
    for (int i = 0; i < name.length(); i++) {
      char ch = name.charAt(i);
      if (ch <= ' ' || ch >= 0x7f || ch == ':') {
        throw new IllegalArgumentException("bad header name: " + name);
      }
    }
    for (int i = 0; i < value.length(); i++) {
      char ch = value.charAt(i);
      if (ch == '\r' || ch == '\n' || ch > 0xff) {
        throw new IllegalArgumentException("bad header value for " + name);
      }
    }
  }

  private HttpResponse exchange(Conn c, byte[] head, byte[] body, boolean headRequest)
      throws IOException {
    c.deadline = System.nanoTime() + options.timeout().toNanos();
    c.write(head, body);
    return c.reader.read(headRequest);
  }

  private Conn pooled() {
    long now = System.nanoTime();
    Conn c;
    while ((c = idle.pollFirst()) != null) {
      idleCount.decrementAndGet();
      if (now - c.lastUsed < options.maxIdle().toNanos()) {
        c.gotBytes = false;
        return c;
      }
      c.close();
    }
    return null;
  }

  private Conn open() throws IOException {
    SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      ch.connect(address);
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    Conn c;
    try {
      c = new Conn(ch, options.maxResponseBytes());
    } catch (IOException e) {
      ch.close();
      throw e;
    }
    opened.incrementAndGet();
    return c;
  }

  private void release(Conn c, boolean reusable) {
    if (!reusable || closed || idleCount.get() >= options.maxIdleConnections()) {
      c.close();
      return;
    }
    c.lastUsed = System.nanoTime();
    idleCount.incrementAndGet();
    idle.offerFirst(c);
    if (closed) {
      drain();
    }
  }

  private void drain() {
    Conn c;
    while ((c = idle.pollFirst()) != null) {
      idleCount.decrementAndGet();
      c.close();
    }
  }

  @Override
  public void close() {
    closed = true;
    drain();
  }

  /**
   * One connection: the channel, a read buffer and the parser on top of it. The channel is
   * non-blocking and waits on its own {@link Selector} (epoll) for the response. A thread asleep in
   * a blocking {@code read} on a Unix socket is also woken each time the server reads the request
   * (the kernel's write-space wake-up of the client's socket, which carries no data): an extra pair
   * of context switches per exchange. epoll only wakes for the readiness asked for.
   */
  private static final class Conn {
    final SocketChannel ch;
    final Selector selector;
    final SelectionKey key;
    final ByteBuffer in = ByteBuffer.allocate(16 * 1024);
    final HttpResponseReader reader;

    /** System.nanoTime() by which the current exchange must end. */
    long deadline;

    boolean gotBytes;
    long lastUsed;

    Conn(SocketChannel ch, int maxBody) throws IOException {
      this.ch = ch;
      ch.configureBlocking(false);
      this.selector = Selector.open();
      try {
        this.key = ch.register(selector, 0);
      } catch (IOException | RuntimeException e) {
        selector.close();
        throw e;
      }
      in.flip();
      this.reader = new HttpResponseReader(new Input(), maxBody);
    }

    void write(byte[] head, byte[] body) throws IOException {
      if (body.length == 0 || head.length + body.length <= 8192) {
        ByteBuffer b;
        if (body.length == 0) {
          b = ByteBuffer.wrap(head);
        } else {
          byte[] all = new byte[head.length + body.length];
          System.arraycopy(head, 0, all, 0, head.length);
          System.arraycopy(body, 0, all, head.length, body.length);
          b = ByteBuffer.wrap(all);
        }
        while (b.hasRemaining()) {
          if (ch.write(b) == 0) {
            await(SelectionKey.OP_WRITE);
          }
        }
      } else {
        ByteBuffer[] bs = {ByteBuffer.wrap(head), ByteBuffer.wrap(body)};
        while (bs[1].hasRemaining()) {
          if (ch.write(bs) == 0) {
            await(SelectionKey.OP_WRITE);
          }
        }
      }
    }

    /** Waits until the channel is ready for {@code op}, or fails with a timeout at the deadline. */
    void await(int op) throws IOException {
      key.interestOps(op);
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new DeadlinePassed();
        }
        // select(ms) rounds down: never 0 (which would wait forever)
        int ready = selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        selector.selectedKeys().clear();
        if (ready > 0) {
          return;
        }
        if (Thread.currentThread().isInterrupted()) {
          // select returns at once while the flag is set: give up, as a blocking channel would
          throw new ClosedByInterruptException();
        }
      }
    }

    void close() {
      try {
        ch.close();
      } catch (IOException ignored) {
        // nothing to do
      }
      try {
        selector.close();
      } catch (IOException ignored) {
        // nothing to do
      }
    }

    /** The channel as a buffered InputStream; each refill waits for data first. */
    final class Input extends InputStream {
      private boolean fill() throws IOException {
        in.clear();
        int n;
        try {
          // wait first: right after the request the answer is rarely there yet (a read would be
          // one more system call, returning nothing)
          do {
            await(SelectionKey.OP_READ);
            n = ch.read(in);
          } while (n == 0);
        } finally {
          in.flip();
        }
        if (n > 0) {
          gotBytes = true;
        }
        return n > 0;
      }

      @Override
      public int read() throws IOException {
        if (!in.hasRemaining() && !fill()) {
          return -1;
        }
        return in.get() & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
          return 0;
        }
        if (!in.hasRemaining() && !fill()) {
          return -1;
        }
        int n = Math.min(len, in.remaining());
        in.get(b, off, n);
        return n;
      }
    }
  }
}

package io.taskmesh.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many SSE clients on one selector thread (NIO), so the load generator holds 10,000 connections
 * with one thread and a few kilobytes each, not a thread and its stack per client. Each client
 * sends an HTTP/1.1 GET, decodes the chunked body and the SSE lines in it, counts its {@code data:}
 * lines, and notes the final update (a data line with a terminal status) and the server closing the
 * stream after it.
 */
final class SseStreamsClient implements AutoCloseable {
  private static final byte[] FINAL_MARK =
      "\"status\":\"succeeded\"".getBytes(StandardCharsets.UTF_8);

  /** Connections that have sent their request but not yet read their status line. */
  private static final int MAX_PENDING = 256;

  private final InetSocketAddress server;
  private final Selector selector;
  private final List<Stream> streams = new ArrayList<>();
  private final AtomicInteger opened = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final AtomicInteger finals = new AtomicInteger();
  private final AtomicInteger closedAfterFinal = new AtomicInteger();
  private final AtomicInteger updates = new AtomicInteger();
  private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64 * 1024);
  private final Thread loop;
  private volatile boolean running = true;
  private int nextToConnect;
  private int pending;

  /** One client per path, connected at most {@link #MAX_PENDING} at a time until all are open. */
  SseStreamsClient(int port, List<String> paths) throws IOException {
    this.server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    this.selector = Selector.open();
    for (String path : paths) {
      streams.add(new Stream(path));
    }
    this.loop = new Thread(this::run, "sse-clients");
    loop.setDaemon(true);
    loop.start();
  }

  /** Clients that read a {@code 200} status line. */
  int opened() {
    return opened.get();
  }

  /** Clients whose connection or status failed, or that closed before their final update. */
  int failed() {
    return failed.get();
  }

  int finals() {
    return finals.get();
  }

  /** Clients whose stream the server ended (last chunk or EOF) after the final update. */
  int closedAfterFinal() {
    return closedAfterFinal.get();
  }

  /** {@code data:} lines read, all clients together. */
  int updates() {
    return updates.get();
  }

  int size() {
    return streams.size();
  }

  /** Clients with fewer than {@code n} updates read (none of them failed). */
  long behind(int n) {
    return streams.stream().filter(s -> !s.failed && s.updates < n).count();
  }

  private void run() {
    try {
      while (running) {
        connectMore();
        selector.select(100);
        for (SelectionKey key : selector.selectedKeys()) {
          Stream s = (Stream) key.attachment();
          try {
            if (key.isConnectable()) {
              s.channel.finishConnect();
              key.interestOps(SelectionKey.OP_WRITE);
            } else if (key.isWritable()) {
              s.channel.write(s.request);
              if (!s.request.hasRemaining()) {
                key.interestOps(SelectionKey.OP_READ);
              }
            } else if (key.isReadable()) {
              read(s, key);
            }
          } catch (IOException e) {
            end(s, key, false);
          }
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void connectMore() throws IOException {
    while (pending < MAX_PENDING && nextToConnect < streams.size()) {
      Stream s = streams.get(nextToConnect++);
      s.channel = SocketChannel.open();
      s.channel.configureBlocking(false);
      s.channel.setOption(StandardSocketOptions.SO_RCVBUF, 16 * 1024);
      pending++;
      if (s.channel.connect(server)) {
        s.channel.register(selector, SelectionKey.OP_WRITE, s);
      } else {
        s.channel.register(selector, SelectionKey.OP_CONNECT, s);
      }
    }
  }

  private void read(Stream s, SelectionKey key) throws IOException {
    readBuffer.clear();
    int n = s.channel.read(readBuffer);
    if (n < 0) {
      end(s, key, s.gotFinal);
      return;
    }
    readBuffer.flip();
    while (readBuffer.hasRemaining() && !s.done) {
      s.accept(readBuffer.get());
    }
    if (s.done) {
      end(s, key, s.gotFinal);
    }
  }

  private void end(Stream s, SelectionKey key, boolean afterFinal) {
    if (s.ended) {
      return;
    }
    s.ended = true;
    key.cancel();
    try {
      s.channel.close();
    } catch (IOException ignored) {
      // closing a socket the peer already closed
    }
    if (!s.statusRead) {
      pending--;
    }
    if (afterFinal) {
      closedAfterFinal.incrementAndGet();
    } else {
      s.failed = true;
      failed.incrementAndGet();
    }
  }

  @Override
  public void close() throws IOException {
    running = false;
    selector.wakeup();
    try {
      loop.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    for (Stream s : streams) {
      if (s.channel != null) {
        s.channel.close();
      }
    }
    selector.close();
  }

  private enum Part {
    HEADERS,
    CHUNK_SIZE,
    CHUNK_DATA,
    CHUNK_END
  }

  /** One client: its request and the decoder state of its response. */
  private final class Stream {
    final ByteBuffer request;
    SocketChannel channel;
    Part part = Part.HEADERS;
    final StringBuilder header = new StringBuilder();
    boolean statusRead;
    boolean chunked;
    long chunkLeft;
    int chunkSize;
    // the SSE line being read: only whether it is a data line and whether it holds the final mark
    int lineLength;
    boolean dataLine;
    int markMatched;
    boolean lineHasMark;
    int updates;
    boolean gotFinal;
    boolean done;
    boolean ended;
    boolean failed;

    Stream(String path) {
      request =
          ByteBuffer.wrap(
              ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
    }

    void accept(byte b) {
      switch (part) {
        case HEADERS -> header(b);
        case CHUNK_SIZE -> chunkSize(b);
        case CHUNK_DATA -> {
          sse(b);
          if (--chunkLeft == 0) {
            part = Part.CHUNK_END;
            chunkSize = 0;
          }
        }
        case CHUNK_END -> {
          if (b == '\n') {
            part = Part.CHUNK_SIZE;
          }
        }
      }
    }

    private void header(byte b) {
      if (b != '\n') {
        if (b != '\r') {
          header.append((char) b);
        }
        return;
      }
      String line = header.toString();
      header.setLength(0);
      if (!statusRead) {
        statusRead = true;
        pending--;
        if (!line.contains(" 200 ")) {
          done = true;
          return;
        }
        opened.incrementAndGet();
      } else if (line.isEmpty()) {
        part = chunked ? Part.CHUNK_SIZE : Part.CHUNK_DATA;
        chunkLeft = chunked ? 0 : Long.MAX_VALUE;
      } else if (line.regionMatches(true, 0, "Transfer-Encoding:", 0, 18)
          && line.toLowerCase(Locale.ROOT).contains("chunked")) {
        chunked = true;
      }
    }

    private void chunkSize(byte b) {
      if (b == '\r' || b == ';') {
        return;
      }
      if (b == '\n') {
        if (chunkSize == 0) {
          done = true; // the last chunk: the server ended the stream
        } else {
          chunkLeft = chunkSize;
          part = Part.CHUNK_DATA;
        }
        return;
      }
      chunkSize = chunkSize * 16 + Character.digit(b, 16);
    }

    private void sse(byte b) {
      if (b == '\n') {
        if (dataLine) {
          updates++;
          SseStreamsClient.this.updates.incrementAndGet();
          if (lineHasMark && !gotFinal) {
            gotFinal = true;
            finals.incrementAndGet();
          }
        }
        lineLength = 0;
        dataLine = false;
        markMatched = 0;
        lineHasMark = false;
        return;
      }
      if (lineLength < 5) {
        dataLine =
            lineLength == 4
                ? dataLine && b == ':'
                : (lineLength == 0 || dataLine) && b == "data".charAt(lineLength);
      }
      lineLength++;
      if (dataLine && !lineHasMark) {
        markMatched = b == FINAL_MARK[markMatched] ? markMatched + 1 : (b == FINAL_MARK[0] ? 1 : 0);
        lineHasMark = markMatched == FINAL_MARK.length;
      }
    }
  }
}

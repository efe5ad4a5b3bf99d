package io.taskmesh.unixhttp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The keep-alive client against real Unix-socket peers that answer (or not) byte by byte. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnixHttpClientIT {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void staleConnectionIsRetriedForGetButNotForPut() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
        UnixHttpClient c = new UnixHttpClient(sock)) {
      // peer 1 answers one request, then closes the (pooled) connection without a word
      Thread peer =
          new Thread(
              () -> {
                try {
                  try (SocketChannel s = server.accept()) {
                    readRequest(s);
                    s.write(ByteBuffer.wrap(utf8("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na")));
                  }
                  try (SocketChannel s = server.accept()) { // the GET retried on a new connection
                    readRequest(s);
                    s.write(ByteBuffer.wrap(utf8("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nb")));
                    Thread.sleep(100);
                  }
                } catch (Exception ignored) {
                  // the test fails on its own
                }
              });
      peer.start();
      assertThat(c.send("GET", "/x", null, null).bodyString()).isEqualTo("a");
      Thread.sleep(100); // the peer has closed the pooled connection by now
      assertThat(c.send("GET", "/x", null, null).bodyString()).isEqualTo("b");
      assertThat(c.connectionsOpened()).isEqualTo(2);
      peer.join();

      // same again with a PUT on the stale connection: not retried, the error reaches the caller
      Thread peer2 =
          new Thread(
              () -> {
                try (SocketChannel s = server.accept()) {
                  readRequest(s);
                  s.write(ByteBuffer.wrap(utf8("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nc")));
                } catch (Exception ignored) {
                  // the test fails on its own
                }
              });
      peer2.start();
      c.close();
      try (UnixHttpClient c2 = new UnixHttpClient(sock)) {
        assertThat(c2.send("GET", "/x", null, null).bodyString()).isEqualTo("c");
        peer2.join();
        Thread.sleep(100);
        assertThatThrownBy(() -> c2.send("PUT", "/x", null, utf8("{}")))
            .isInstanceOf(IOException.class);
        assertThat(c2.connectionsOpened()).isEqualTo(1);
      }
    }
  }

  @Test
  void aSilentServerTimesOut() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
        UnixHttpClient c =
            new UnixHttpClient(
                sock, UnixHttpClient.Options.defaults().withTimeout(Duration.ofMillis(300)))) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> c.send("GET", "/x", null, null))
          .isInstanceOf(UnixHttpClient.TimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void anInterruptedCallerStopsWaitingAndTheConnectionIsNotReused() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
        UnixHttpClient c = new UnixHttpClient(sock)) {
      AtomicReference<Throwable> failure = new AtomicReference<>();
      Thread caller =
          new Thread(
              () -> {
                try {
                  c.send("GET", "/x", null, null);
                } catch (Throwable e) {
                  failure.set(e);
                }
              });
      caller.start();
      try (SocketChannel peer = server.accept()) {
        readRequest(
            peer); // the request arrived: the caller now waits for an answer that never comes
        caller.interrupt();
        caller.join(5_000);
        assertThat(caller.isAlive()).as("the caller still waits after its interrupt").isFalse();
        assertThat(failure.get()).isInstanceOf(ClosedByInterruptException.class);
        // the client closed its end: the server reads end-of-stream
        assertThat(peer.read(ByteBuffer.allocate(16))).isEqualTo(-1);
      }
      assertThat(c.connectionsOpened()).isEqualTo(1);
    }
  }

  @Test
  void noServerIsAnIoError() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("none.sock");
    try (UnixHttpClient c = new UnixHttpClient(sock)) {
      assertThatThrownBy(() -> c.send("GET", "/x", null, null)).isInstanceOf(IOException.class);
    }
  }

  /** A bare peer on {@code sock}: the test accepts and answers (or not) by hand. */
  private static ServerSocketChannel listeningOn(Path sock) throws IOException {
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(sock));
    } catch (IOException e) {
      server.close();
      throw e;
    }
    return server;
  }

  private static void readRequest(SocketChannel s) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8192);
    StringBuilder sb = new StringBuilder();
    while (!sb.toString().contains("\r\n\r\n")) {
      b.clear();
      if (s.read(b) < 0) {
        return;
      }
      b.flip();
      sb.append(StandardCharsets.ISO_8859_1.decode(b));
    }
    int cl = sb.indexOf("Content-Length: ");
    if (cl >= 0) {
      int n = Integer.parseInt(sb.substring(cl + 16, sb.indexOf("\r\n", cl)));
      int have = sb.length() - sb.indexOf("\r\n\r\n") - 4;
      ByteBuffer rest = ByteBuffer.allocate(Math.max(0, n - have));
      while (rest.hasRemaining() && s.read(rest) >= 0) {
        // read the body
      }
    }
  }
}

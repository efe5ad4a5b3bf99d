package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The keep-alive Unix-socket client against the real connector and against raw socket peers. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnixHttpClientIT {
  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void reusesOneConnectionForSequentialRequestsOfEveryKind() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of("CONNECTOR_MAX_BODY_BYTES", "4096"));
         UnixHttpClient c = new UnixHttpClient(kv.config.socket())) {
      assertThat(c.send("PUT", "/keys/a%2Fb", null, utf8("{\"status\":\"x\",\"s\":\"\u00e9\"}")).status()).isEqualTo(201);
      for (int i = 0; i < 50; i++) {
        HttpResponse g = c.send("GET", "/keys/a%2Fb", null, null);
        assertThat(g.status()).isEqualTo(200);
        assertThat(g.bodyString()).contains("\"s\": \"\u00e9\"");
      }
      assertThat(c.send("HEAD", "/keys/a%2Fb", null, null).header("x-is-file")).isEqualTo("true");
      assertThat(c.send("GET", "/keys/missing", null, null).status()).isEqualTo(404);
      assertThat(c.send("PUT", "/keys/a%2Fb?if_status=y", null, utf8("{}")).status()).isEqualTo(409);
      assertThat(c.send("PUT", "/keys/a%2Fb", Map.of("If-None-Match", "*"), utf8("{}")).status()).isEqualTo(412);
      assertThat(c.send("PUT", "/keys/bad", null, utf8("{'a':1}")).status()).isEqualTo(400);
      assertThat(c.send("POST", "/query", null, utf8("{\"prefix\":\"a\",\"count\":true}"), true).bodyString())
          .contains("\"total\":1");
      assertThat(c.send("DELETE", "/keys/a%2Fb", null, null).status()).isEqualTo(204);
      assertThat(c.connectionsOpened()).isEqualTo(1);
      // a 413 may make the server close the connection: the next request still works
      assertThat(c.send("PUT", "/keys/big", null, new byte[8192]).status()).isEqualTo(413);
      assertThat(c.send("GET", "/healthz", null, null).status()).isEqualTo(200);
    }
  }

  @Test
  void concurrentCallersShareThePool() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of());
         UnixHttpClient c = new UnixHttpClient(kv.config.socket())) {
      ExecutorService ex = Executors.newFixedThreadPool(8);
      List<Future<Integer>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int tt = t;
        fs.add(ex.submit(() -> {
          for (int i = 0; i < 100; i++) {
            String key = "/keys/t" + tt + "-" + i;
            if (c.send("PUT", key, null, utf8("{\"i\":" + i + "}")).status() != 201
                || !c.send("GET", key, null, null).bodyString().contains("\"i\": " + i + "}")) {
              return 1;
            }
          }
          return 0;
        }));
      }
      for (Future<Integer> f : fs) {
        assertThat(f.get()).isZero();
      }
      ex.shutdown();
      assertThat(c.connectionsOpened()).isLessThanOrEqualTo(8);
    }
  }

  @Test
  void staleConnectionIsRetriedForGetButNotForPut() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
         UnixHttpClient c = new UnixHttpClient(sock)) {
      // peer 1 answers one request, then closes the (pooled) connection without a word
      Thread peer = new Thread(() -> {
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
      Thread peer2 = new Thread(() -> {
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
        assertThatThrownBy(() -> c2.send("PUT", "/x", null, utf8("{}"))).isInstanceOf(IOException.class);
        assertThat(c2.connectionsOpened()).isEqualTo(1);
      }
    }
  }

  @Test
  void aSilentServerTimesOut() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
         UnixHttpClient c = new UnixHttpClient(sock, UnixHttpClient.Options.defaults().withTimeout(Duration.ofMillis(300)))) {
      long t0 = System.nanoTime();
      assertThatThrownBy(() -> c.send("GET", "/x", null, null)).isInstanceOf(UnixHttpClient.TimeoutException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }
  }

  @Test
  void anInterruptedCallerStopsWaitingAndTheConnectionIsNotReused() throws Exception {
    Path sock = Files.createTempDirectory("uhc").resolve("s.sock");
    try (ServerSocketChannel server = listeningOn(sock);
         UnixHttpClient c = new UnixHttpClient(sock)) {
      java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
      Thread caller = new Thread(() -> {
        try {
          c.send("GET", "/x", null, null);
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      caller.start();
      try (SocketChannel peer = server.accept()) {
        readRequest(peer); // the request arrived: the caller now waits for an answer that never comes
        caller.interrupt();
        caller.join(5_000);
        assertThat(caller.isAlive()).as("the caller still waits after its interrupt").isFalse();
        assertThat(failure.get()).isInstanceOf(java.nio.channels.ClosedByInterruptException.class);
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

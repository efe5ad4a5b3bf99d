package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 33 item 1, the slow-body attack: 240 connections, with no credentials, each declare a
 * 1,000-byte body to a protocol route and send it one byte a second. Before, they held a server
 * thread each (the metrics filter read every body before auth) and {@code /health} went unanswered
 * for 30 s. Now every {@code /health} probe during the attack is answered, and the server cuts the
 * slow bodies. The probe latencies are printed (measured, never asserted: 2 shared cores).
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class SlowBodyIT {
  private static final int CONNECTIONS = Integer.getInteger("slowbody.connections", 300);
  private static final List<String> ROUTES =
      List.of("/a2a/", "/mcp", "/a2a/v1/message:send", "/tools/call");

  /** One attacker connection: its socket, and whether the server has let go of it. */
  private static final class Slow {
    final Socket socket;
    final InputStream in;
    final String route;
    volatile boolean cut;

    Slow(int port, String route) throws IOException {
      this.route = route;
      socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      in = socket.getInputStream();
      String head =
          "POST "
              + route
              + " HTTP/1.1\r\nHost: 127.0.0.1:"
              + port
              + "\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
              + "\r\nA2A-Version: 1.0\r\nContent-Length: 1000\r\n\r\n{";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
    }

    /** Sends one more byte; notes when the server answered (408) or closed instead. */
    void trickle() {
      if (cut) {
        return;
      }
      try {
        if (in.available() > 0) {
          cut = true;
          return;
        }
        socket.getOutputStream().write(' ');
        socket.getOutputStream().flush();
      } catch (IOException e) {
        cut = true;
      }
    }

    void close() {
      try {
        socket.close();
      } catch (IOException e) {
        // closing the test's own socket
      }
    }
  }

  @Test
  void healthAnswersThroughoutASlowBodyAttack() throws Exception {
    try (EdgeGateway gateway = EdgeGateway.start(GatewayMode.TESTING)) {
      int port = URI.create(gateway.url("/")).getPort();
      List<Slow> slow = new ArrayList<>();
      for (int i = 0; i < CONNECTIONS; i++) {
        slow.add(new Slow(port, ROUTES.get(i % ROUTES.size())));
      }
      Thread trickler =
          new Thread(
              () -> {
                while (!Thread.currentThread().isInterrupted()) {
                  slow.forEach(Slow::trickle);
                  try {
                    Thread.sleep(1000); // the attack's pace: one byte a second per connection
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              },
              "slow-body-trickler");
      trickler.setDaemon(true);
      trickler.start();
      HttpClient http = HttpClient.newHttpClient();
      List<Long> millis = Collections.synchronizedList(new ArrayList<>());
      List<String> unanswered = new ArrayList<>();
      int probes = 0;
      int mostBusy = 0;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < end) {
        mostBusy = Math.max(mostBusy, threadsInRequestCode());
        long start = System.nanoTime();
        probes++;
        try {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(gateway.url("/health")))
                      .timeout(Duration.ofSeconds(20))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          millis.add((System.nanoTime() - start) / 1_000_000);
          if (r.statusCode() != 200) {
            unanswered.add("status " + r.statusCode());
          }
        } catch (IOException e) {
          unanswered.add(e.toString());
        }
      }
      long serverThreads =
          Thread.getAllStackTraces().keySet().stream()
              .filter(t -> t.getName().startsWith("JettyServerThreadPool"))
              .count();
      List<Long> sorted = new ArrayList<>(millis);
      Collections.sort(sorted);
      System.out.printf(
          "slow-body attack: %d connections; /health answered %d of %d probes, p50 %d ms, max %d"
              + " ms; server threads at the end of it %d, at most %d of them in request code%n",
          CONNECTIONS,
          probes - unanswered.size(),
          probes,
          sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2),
          sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1),
          serverThreads,
          mostBusy);
      Await.until(
          () ->
              slow.stream()
                  .filter(c -> !c.cut)
                  .collect(
                      java.util.stream.Collectors.groupingBy(
                          c -> c.route, java.util.stream.Collectors.counting())),
          java.util.Map::isEmpty,
          Duration.ofSeconds(120),
          "the server cuts every slow body (not cut, by route)");
      trickler.interrupt();
      slow.forEach(Slow::close);
      assertThat(unanswered).isEmpty();
      assertThat(millis).isNotEmpty();
      // bodies load without a thread; the server's other threads idle in its pool or selectors
      assertThat(mostBusy)
          .as("server threads running request code while %d bodies trickle in", CONNECTIONS)
          .isLessThan(CONNECTIONS / 10);
    }
  }

  /**
   * Server threads whose stack holds a frame of request handling (Jetty's servlet layer, Javalin,
   * ours): a thread that waited for a slow body would be one of them; an idle pool thread is not.
   */
  private static int threadsInRequestCode() {
    int busy = 0;
    for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
      if (!t.getKey().getName().startsWith("JettyServerThreadPool")) {
        continue;
      }
      for (StackTraceElement frame : t.getValue()) {
        String c = frame.getClassName();
        if (c.startsWith("io.javalin.")
            || c.startsWith("io.taskmesh.")
            || c.startsWith("org.eclipse.jetty.ee10.servlet.")) {
          busy++;
          break;
        }
      }
    }
    return busy;
  }
}

package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Route;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The report lane against a real HTTP server that answers slowly, as a loaded gateway does. */
@Timeout(30)
class GatewayReporterIT {
  private final List<String> received = new CopyOnWriteArrayList<>();

  /** Holds every request until counted down; the first test lets requests through after 100 ms. */
  private volatile CountDownLatch release = new CountDownLatch(1);

  private HttpServer server;
  private String url;

  @BeforeEach
  void start() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/mesh/",
        ex -> {
          try {
            release.await(10, TimeUnit.SECONDS); // a slow gateway
            Thread.sleep(100);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          received.add(
              ex.getRequestURI().getPath() + " " + new String(ex.getRequestBody().readAllBytes()));
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.stop(0);
  }

  @Test
  void awaitSentReturnsOnlyOnceTheQueuedReportsReachedTheGateway() throws Exception {
    try (GatewayReporter reporter = new GatewayReporter(url)) {
      release.countDown(); // each request still takes 100 ms
      Envelope e = envelope();
      reporter.progress(e, e.route(), ActorState.PROCESSING, null);
      reporter.progress(e, e.route(), ActorState.COMPLETED, null);
      reporter.awaitSent(Duration.ofSeconds(10));
      assertThat(received).hasSize(2);
      assertThat(received.get(1)).startsWith("/mesh/e1/progress").contains("\"completed\"");
    }
  }

  @Test
  void aGatewayThatDoesNotAnswerDelaysRoutingOnlyUpToTheLimit() {
    try (GatewayReporter reporter = new GatewayReporter(url)) {
      Envelope e = envelope();
      reporter.progress(e, e.route(), ActorState.COMPLETED, null);
      reporter.awaitSent(Duration.ofMillis(200)); // the server holds the request: this must give up
      assertThat(received).isEmpty();
      release.countDown();
    }
    assertThat(received).hasSize(1); // close() still sends what was queued
  }

  @Test
  void withoutAGatewayUrlNothingIsQueuedOrAwaited() {
    try (GatewayReporter reporter = new GatewayReporter(null)) {
      Envelope e = envelope();
      reporter.progress(e, e.route(), ActorState.COMPLETED, null);
      reporter.awaitSent(Duration.ofDays(1)); // returns at once: nothing is unsent
    }
    assertThat(received).isEmpty();
  }

  private static Envelope envelope() {
    return new Envelope("e1", null, Route.start("a", List.of()), null, null, Map.of());
  }
}

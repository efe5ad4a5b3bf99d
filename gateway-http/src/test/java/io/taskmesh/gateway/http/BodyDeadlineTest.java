package io.taskmesh.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The body deadline on a real Jetty server: a request whose body arrived leaves no deadline behind
 * (each one would otherwise wake the gateway 30 s later, long after a busy minute), and one whose
 * body has not arrived keeps its deadline.
 */
class BodyDeadlineTest {
  /**
   * Jetty's scheduler, counting the body deadlines it holds that neither ran nor were cancelled
   * (the connector's idle timeout, also on this scheduler, is set apart by its delay).
   */
  private static final class CountingScheduler extends ScheduledExecutorScheduler {
    final AtomicInteger pending = new AtomicInteger();

    @Override
    public Task schedule(Runnable task, long delay, TimeUnit units) {
      if (units.toMillis(delay) != SlowClients.BODY_DEADLINE_MS) {
        return super.schedule(task, delay, units);
      }
      pending.incrementAndGet();
      Task scheduled =
          super.schedule(
              () -> {
                pending.decrementAndGet();
                task.run();
              },
              delay,
              units);
      return () -> {
        boolean cancelled = scheduled.cancel();
        if (cancelled) {
          pending.decrementAndGet();
        }
        return cancelled;
      };
    }
  }

  private final CountingScheduler scheduler = new CountingScheduler();
  private Server server;

  private int start() throws Exception {
    server = new Server(null, scheduler, null);
    ServerConnector connector = new ServerConnector(server);
    connector.setPort(0);
    connector.setIdleTimeout(5 * SlowClients.BODY_DEADLINE_MS);
    server.addConnector(connector);
    SlowClients.BodyDeadline deadline = new SlowClients.BodyDeadline();
    deadline.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws Exception {
            String body = Content.Source.asString(request, StandardCharsets.UTF_8);
            Content.Sink.write(response, true, "got " + body.length(), callback);
            return true;
          }
        });
    server.setHandler(deadline);
    server.start();
    return connector.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void aRequestWhoseBodyArrivedLeavesNoDeadlineBehind() throws Exception {
    int port = start();
    HttpClient client = HttpClient.newHttpClient();
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/"))
                  .POST(HttpRequest.BodyPublishers.ofString("{\"n\":" + i + "}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.body()).startsWith("got ");
    }
    assertThat(scheduler.pending.get()).isZero();
  }

  @Test
  void aBodyStillOnItsWayKeepsItsDeadlineUntilItIsIn() throws Exception {
    int port = start();
    try (Socket socket = new Socket("127.0.0.1", port)) {
      OutputStream out = socket.getOutputStream();
      out.write(
          "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a\":"
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Await.until(
          () -> scheduler.pending.get() == 1, Duration.ofSeconds(10), "the body's deadline set");
      out.write("\"bcd\"}".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String answer = new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 200");
      Await.until(
          () -> scheduler.pending.get() == 0, Duration.ofSeconds(10), "the deadline cancelled");
    }
  }
}

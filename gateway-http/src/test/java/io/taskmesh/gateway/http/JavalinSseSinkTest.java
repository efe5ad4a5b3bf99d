package io.taskmesh.gateway.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import io.javalin.http.sse.SseHandler;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The frames {@link JavalinSseSink} writes itself (one write each, no output buffer held) on a real
 * Javalin server: the SSE wire format clients parse, as Javalin's emitter wrote it before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JavalinSseSinkTest {
  private Javalin app;

  @BeforeEach
  void start() {
    app =
        Javalin.create(
            cfg ->
                cfg.routes.get(
                    "/sse",
                    ctx ->
                        new SseHandler(
                                client -> {
                                  JavalinSseSink sink = new JavalinSseSink(client);
                                  try {
                                    sink.event("update", "{\"a\":1}", "7");
                                    sink.event(null, "line one\nline two", null);
                                    sink.event("ev\nil", "x", "1\r\n2");
                                    sink.flush(); // one burst, one write
                                    sink.comment("keepalive");
                                    sink.retry(1000);
                                    sink.flush();
                                    sink.flush(); // nothing pending: writes nothing
                                    // a frame far larger than Jetty's response buffer: one write
                                    sink.event("big", "y".repeat(100_000), null);
                                    sink.flush();
                                    sink.event("never", "not flushed", null);
                                  } catch (IOException e) {
                                    throw new IllegalStateException(e);
                                  }
                                  sink.close();
                                })
                            .handle(ctx)));
    app.start("127.0.0.1", 0);
  }

  @AfterEach
  void stop() {
    app.stop();
  }

  @Test
  void writesTheSseWireFormatOfWhatEachFlushGathered() throws Exception {
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + app.port() + "/sse"))
                    .header("Accept", "text/event-stream")
                    .timeout(Duration.ofSeconds(20))
                    .build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(t -> assertThat(t).startsWith("text/event-stream"));
    assertThat(r.body())
        .isEqualTo(
            "id: 7\nevent: update\ndata: {\"a\":1}\n\n"
                + "data: line one\ndata: line two\n\n"
                + "id: 12\nevent: evil\ndata: x\n\n"
                + ": keepalive\n"
                + "retry: 1000\n\n"
                + "event: big\ndata: "
                + "y".repeat(100_000)
                + "\n\n");
  }
}

package io.taskmesh.servicekit.trace;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class TracingTest {
  private static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  @Test
  void offByDefaultRecordsNothingAndPassesTheReceivedContextOnUnchanged() {
    Tracing off = Tracing.fromEnv(Map.of());
    assertThat(off.recording()).isFalse();
    Map<String, Object> in =
        new LinkedHashMap<>(Map.of("traceparent", PARENT, "tracestate", "a=1"));
    Span span = off.tracer().spanBuilder("x").setParent(TraceHeaders.extract(off, in)).startSpan();
    Map<String, Object> out = new LinkedHashMap<>();
    TraceHeaders.inject(off, span, out);
    assertThat(out).containsEntry("traceparent", PARENT).containsEntry("tracestate", "a=1");
  }

  @Test
  void aRootSpanWithTracingOffHasNoContextToWrite() {
    Tracing off = Tracing.off();
    Span span = off.tracer().spanBuilder("x").setParent(Context.root()).startSpan();
    Map<String, Object> out = new LinkedHashMap<>();
    TraceHeaders.inject(off, span, out);
    assertThat(out).isEmpty();
    assertThat(TraceHeaders.random()).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
  }

  @Test
  void aMalformedOrNonStringTraceparentIsNoContext() {
    Tracing off = Tracing.off();
    assertThat(TraceHeaders.spanContext(off, Map.of("traceparent", "00-zz-01")).isValid())
        .isFalse();
    assertThat(TraceHeaders.spanContext(off, Map.of("traceparent", 42)).isValid()).isFalse();
    assertThat(TraceHeaders.spanContext(off, Map.of("traceparent", PARENT)).getSpanId())
        .isEqualTo("00f067aa0ba902b7");
  }

  @Test
  void withAnEndpointSpansAreChildrenOfTheReceivedContextAndSentOverOtlpHttp() throws Exception {
    LinkedBlockingQueue<Received> posts = new LinkedBlockingQueue<>();
    HttpServer receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/",
        exchange -> {
          posts.add(
              new Received(
                  exchange.getRequestURI().getPath(),
                  exchange.getRequestHeaders().getFirst("Content-Type"),
                  body(
                      exchange.getRequestBody(),
                      exchange.getRequestHeaders().getFirst("Content-Encoding"))));
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    receiver.start();
    try (Tracing on =
        Tracing.fromEnv(
            Map.of(
                Tracing.ENDPOINT_ENV,
                "http://127.0.0.1:" + receiver.getAddress().getPort(),
                Tracing.SERVICE_NAME_ENV,
                "unit-test-service"))) {
      assertThat(on.recording()).isTrue();
      Span span =
          on.tracer()
              .spanBuilder("process a")
              .setParent(TraceHeaders.extract(on, Map.of("traceparent", PARENT)))
              .startSpan();
      SpanContext sc = span.getSpanContext();
      Map<String, Object> out = new LinkedHashMap<>();
      TraceHeaders.inject(on, span, out);
      span.end();
      on.flush();
      assertThat(sc.getTraceId()).isEqualTo("4bf92f3577b34da6a3ce929d0e0e4736");
      assertThat(out.get("traceparent"))
          .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-" + sc.getSpanId() + "-01");

      Received post = posts.poll(10, TimeUnit.SECONDS);
      assertThat(post).isNotNull();
      assertThat(post.path()).isEqualTo("/v1/traces");
      assertThat(post.contentType()).isEqualTo("application/x-protobuf");
      // protobuf carries the ids as raw bytes and the names as UTF-8 strings
      String body = HexFormat.of().formatHex(post.body());
      assertThat(body)
          .contains(sc.getTraceId())
          .contains(sc.getSpanId())
          .contains("00f067aa0ba902b7")
          .contains(HexFormat.of().formatHex("process a".getBytes()))
          .contains(HexFormat.of().formatHex("unit-test-service".getBytes()));
    } finally {
      receiver.stop(0);
    }
  }

  @Test
  void theTracesPathIsAppendedToTheBaseEndpoint() {
    assertThat(Tracing.tracesUrl("http://c:4318")).isEqualTo("http://c:4318/v1/traces");
    assertThat(Tracing.tracesUrl("http://c:4318/")).isEqualTo("http://c:4318/v1/traces");
  }

  private record Received(String path, String contentType, byte[] body) {}

  private static byte[] body(InputStream in, String encoding) throws IOException {
    InputStream src = "gzip".equalsIgnoreCase(encoding) ? new GZIPInputStream(in) : in;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    src.transferTo(out);
    return out.toByteArray();
  }
}

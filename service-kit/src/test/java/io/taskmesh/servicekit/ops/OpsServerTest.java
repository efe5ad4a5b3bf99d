package io.taskmesh.servicekit.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The ops port over real HTTP: metrics exposition, readiness answers, the env switch. */
@Timeout(30)
class OpsServerTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void servesMetricsInTheFormatAskedFor() throws Exception {
    Counter.builder("taskmesh.ops.test.events").register(ServiceMetrics.registry()).increment(3);
    try (OpsServer ops = OpsServer.start("127.0.0.1", 0, new Readiness())) {
      HttpResponse<String> text = get(ops, "/metrics", null);
      assertThat(text.statusCode()).isEqualTo(200);
      assertThat(text.headers().firstValue("Content-Type")).hasValue(ServiceMetrics.TEXT);
      assertThat(text.body())
          .contains("# TYPE taskmesh_ops_test_events_total counter")
          .contains("taskmesh_ops_test_events_total 3.0")
          .contains("jvm_memory_used_bytes");
      HttpResponse<String> om =
          get(ops, "/metrics", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5");
      assertThat(om.headers().firstValue("Content-Type")).hasValue(ServiceMetrics.OPENMETRICS);
      assertThat(om.body()).endsWith("# EOF\n");
    }
  }

  @Test
  void readyIs200WhenEveryCheckPassesAnd503NamingTheOneThatFails() throws Exception {
    Readiness readiness =
        new Readiness()
            .add("always", () -> null)
            .add("kafka", new KafkaProbe(deadAddress(), Duration.ofMillis(500)));
    try (OpsServer ops = OpsServer.start("127.0.0.1", 0, readiness)) {
      HttpResponse<String> r = get(ops, "/ready", null);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
      assertThat(r.body())
          .startsWith(
              "{\"status\":\"not_ready\",\"checks\":{\"always\":{\"ok\":true},\"kafka\":{\"ok\":false,\"problem\":\"Kafka at ")
          .contains("unreachable within 500 ms");
    } finally {
      readiness.close();
    }
    Readiness fine = new Readiness().add("always", () -> null);
    try (OpsServer ops = OpsServer.start("127.0.0.1", 0, fine)) {
      HttpResponse<String> r = get(ops, "/ready", null);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body())
          .isEqualTo("{\"status\":\"ready\",\"checks\":{\"always\":{\"ok\":true}}}");
      fine.drain();
      HttpResponse<String> draining = get(ops, "/ready", null);
      assertThat(draining.statusCode()).isEqualTo(503);
      assertThat(draining.body())
          .contains("\"draining\":{\"ok\":false,\"problem\":\"the service is stopping\"}");
      assertThat(get(ops, "/health", null).body()).isEqualTo("OK");
      assertThat(get(ops, "/metricsx", null).statusCode()).isEqualTo(404);
    }
  }

  @Test
  void aCheckThatThrowsFailsWithItsMessage() {
    Readiness.Answer a =
        new Readiness()
            .add(
                "db",
                () -> {
                  throw new IllegalStateException("pool \"closed\"");
                })
            .check();
    assertThat(a.ready()).isFalse();
    assertThat(a.json())
        .isEqualTo(
            "{\"status\":\"not_ready\",\"checks\":{\"db\":{\"ok\":false,\"problem\":\"pool \\\"closed\\\"\"}}}");
  }

  @Test
  void thePortIsOffUnlessTheVariableIsSet() throws Exception {
    assertThat(OpsServer.startIfConfigured(Map.of(), new Readiness())).isNull();
    try (OpsServer ops =
        OpsServer.startIfConfigured(
            Map.of(OpsServer.PORT_VAR, "0", OpsServer.HOST_VAR, "127.0.0.1"), new Readiness())) {
      assertThat(ops.port()).isPositive();
      assertThat(get(ops, "/health", null).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void theAcceptHeaderPicksTheFormat() {
    assertThat(ServiceMetrics.contentTypeFor(null)).isEqualTo(ServiceMetrics.TEXT);
    assertThat(ServiceMetrics.contentTypeFor("*/*")).isEqualTo(ServiceMetrics.TEXT);
    assertThat(
            ServiceMetrics.contentTypeFor(
                "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;q=0.3"))
        .isEqualTo(ServiceMetrics.PROTOBUF);
    assertThat(ServiceMetrics.scrape("application/vnd.google.protobuf").body()).isNotEmpty();
  }

  /** A local port nobody listens on (bound, then released). */
  private static String deadAddress() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return "127.0.0.1:" + s.getLocalPort();
    }
  }

  private static HttpResponse<String> get(OpsServer ops, String path, String accept)
      throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ops.port() + path)).GET();
    if (accept != null) {
      b.header("Accept", accept);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }
}

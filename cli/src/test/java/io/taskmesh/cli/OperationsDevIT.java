package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.Metric;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricFamily;
import io.prometheus.metrics.expositionformats.generated.com_google_protobuf_4_35_0.Metrics.MetricType;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Metrics and readiness of the dev stack, all real: a task runs through gateway, sidecars and
 * x-sink; then the gateway's {@code /metrics} (in dev the one registry of every service) is read in
 * the Prometheus protobuf format and decoded with the Prometheus project's own generated classes,
 * and each named meter must be there with its type and labels.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@ExtendWith(SharedExamples.class)
class OperationsDevIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String PROTOBUF =
      "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited";
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() {
    stack = SharedExamples.stack();
    base = stack.gatewayUrl();
  }

  @Test
  void aTaskShowsUpInTheNamedMetersWithTheirTypes() throws Exception {
    String id = callTool("shout", "{\"text\":\"metrics\"}");
    try (SseReader sse = SseReader.open(base + "/stream/" + id, null)) {
      sse.readUntilClosed(Duration.ofSeconds(60));
    }
    HttpResponse<String> a2a =
        post(
            "/a2a/",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"no-such-task\"}}");
    assertThat(a2a.body()).contains("\"error\"");

    // the fold counts the finished task a moment after the final update is out
    Await.until(
        () -> sample(scrape(), "taskmesh_tasks_finished", Map.of("flow", "shout")) >= 1,
        Duration.ofSeconds(20),
        "the finished shout task is counted");
    Map<String, MetricFamily> m = scrape();

    assertType(m, "taskmesh_tasks_started", MetricType.COUNTER);
    assertThat(sample(m, "taskmesh_tasks_started", Map.of("flow", "shout")))
        .isGreaterThanOrEqualTo(1);
    assertType(m, "taskmesh_tasks_finished", MetricType.COUNTER);
    assertThat(sample(m, "taskmesh_tasks_finished", Map.of("flow", "shout", "status", "succeeded")))
        .isGreaterThanOrEqualTo(1);
    assertType(m, "taskmesh_task_duration_seconds", MetricType.HISTOGRAM);
    assertThat(histogramCount(m, "taskmesh_task_duration_seconds", Map.of("flow", "shout")))
        .isGreaterThanOrEqualTo(1);

    assertType(m, "taskmesh_actor_envelopes", MetricType.COUNTER);
    for (String actor : List.of("upper", "reverse", "count", "x-sink", "x-sump")) {
      assertThat(sample(m, "taskmesh_actor_envelopes", Map.of("actor", actor, "outcome", "ok")))
          .as(actor)
          .isGreaterThanOrEqualTo(1);
    }
    assertThat(labelValues(m, "taskmesh_actor_envelopes", "outcome"))
        .contains("ok", "retried", "failed", "dlq", "timeout");
    assertType(m, "taskmesh_actor_runtime_call_duration_seconds", MetricType.HISTOGRAM);
    assertThat(
            histogramCount(
                m,
                "taskmesh_actor_runtime_call_duration_seconds",
                Map.of("actor", "upper", "result", "frames")))
        .isGreaterThanOrEqualTo(1);
    assertType(m, "taskmesh_actor_commit_duration_seconds", MetricType.HISTOGRAM);
    assertThat(
            histogramCount(m, "taskmesh_actor_commit_duration_seconds", Map.of("actor", "upper")))
        .isGreaterThanOrEqualTo(1);
    assertType(m, "taskmesh_actor_consumer_lag_records", MetricType.GAUGE);
    assertThat(labelValues(m, "taskmesh_actor_consumer_lag_records", "actor"))
        .contains("upper", "reverse", "count", "x-sink");

    assertType(m, "taskmesh_sse_clients", MetricType.GAUGE);
    assertType(m, "taskmesh_sse_fly_events_dropped", MetricType.COUNTER);
    assertType(m, "taskmesh_protocol_requests", MetricType.COUNTER);
    assertThat(
            sample(
                m,
                "taskmesh_protocol_requests",
                Map.of("protocol", "a2a", "method", "tasks/get", "result", "error")))
        .isGreaterThanOrEqualTo(1);
    assertType(m, "taskmesh_kv_request_duration_seconds", MetricType.HISTOGRAM);

    assertType(m, "jvm_memory_used_bytes", MetricType.GAUGE);
    assertType(m, "process_cpu_usage", MetricType.GAUGE);
    assertThat(m.keySet()).anyMatch(n -> n.startsWith("kafka_consumer_fetch_manager_"));
    assertThat(m.keySet()).anyMatch(n -> n.startsWith("kafka_producer_"));
    assertThat(m.keySet()).anyMatch(n -> n.startsWith("kafka_stream_"));
  }

  @Test
  void taskCountersAreBornAtZeroForEveryLoadedFlowAndFinalStatus() throws Exception {
    Map<String, MetricFamily> m = scrape();
    // every final status of divide has its series, whether or not a task of it ended so; the
    // values are not asserted: the registry is the JVM's, shared with the other ITs of this fork
    // (AgentFrameworksIT fails divide tasks), and TaskViewMetricsTest shows they start at 0
    for (String status : List.of("succeeded", "failed", "canceled")) {
      assertThat(matching(m, "taskmesh_tasks_finished", Map.of("flow", "divide", "status", status)))
          .as("divide " + status)
          .hasSize(1);
    }
    assertThat(matching(m, "taskmesh_tasks_started", Map.of("flow", "divide"))).hasSize(1);
    assertThat(labelValues(m, "taskmesh_tasks_started", "flow"))
        .contains("echo", "shout", "tokens", "review", "words", "countdown", "interview", "divide");
  }

  @Test
  void textExpositionFollowsTheNamingConventions() throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/metrics")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/plain");
    assertThat(r.body())
        .contains("# TYPE taskmesh_tasks_started_total counter")
        .contains("# TYPE taskmesh_task_duration_seconds histogram")
        .contains("# TYPE taskmesh_actor_consumer_lag_records gauge");
  }

  @Test
  void gatewayAndMeshApiAreReadyWithEveryCheckNamed() throws Exception {
    JsonNode gateway = ready(base);
    assertThat(gateway.get("status").asText()).isEqualTo("ready");
    assertThat(gateway.get("checks").fieldNames())
        .toIterable()
        .containsExactly("kafka", "streams", "database");
    JsonNode mesh = ready(stack.meshApiUrl());
    assertThat(mesh.get("status").asText()).isEqualTo("ready");
    assertThat(mesh.get("checks").fieldNames())
        .toIterable()
        .containsExactly("kafka", "kv_connector");
  }

  private static JsonNode ready(String url) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url + "/ready")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }

  /** Families by name; a counter's family is named without {@code _total} in this format. */
  private static Map<String, MetricFamily> scrape() throws Exception {
    HttpResponse<byte[]> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/metrics"))
                .header("Accept", PROTOBUF)
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/vnd.google.protobuf");
    Map<String, MetricFamily> families = new HashMap<>();
    try (InputStream in = new ByteArrayInputStream(r.body())) {
      MetricFamily f;
      while ((f = MetricFamily.parseDelimitedFrom(in)) != null) {
        families.put(f.getName().replaceFirst("_total$", ""), f);
      }
    }
    return families;
  }

  private static void assertType(Map<String, MetricFamily> m, String name, MetricType type) {
    assertThat(m).as("metric family " + name).containsKey(name);
    assertThat(m.get(name).getType()).as(name).isEqualTo(type);
  }

  private static List<Metric> matching(
      Map<String, MetricFamily> m, String name, Map<String, String> labels) {
    MetricFamily f = m.get(name);
    if (f == null) {
      return List.of();
    }
    return f.getMetricList().stream()
        .filter(
            x ->
                labels.entrySet().stream()
                    .allMatch(
                        want ->
                            x.getLabelList().stream()
                                .anyMatch(
                                    l ->
                                        l.getName().equals(want.getKey())
                                            && l.getValue().equals(want.getValue()))))
        .toList();
  }

  private static double sample(
      Map<String, MetricFamily> m, String name, Map<String, String> labels) {
    return matching(m, name, labels).stream()
        .mapToDouble(x -> x.hasCounter() ? x.getCounter().getValue() : x.getGauge().getValue())
        .sum();
  }

  private static long histogramCount(
      Map<String, MetricFamily> m, String name, Map<String, String> labels) {
    return matching(m, name, labels).stream()
        .mapToLong(x -> x.getHistogram().getSampleCount())
        .sum();
  }

  private static List<String> labelValues(Map<String, MetricFamily> m, String name, String label) {
    return m.get(name).getMetricList().stream()
        .flatMap(x -> x.getLabelList().stream())
        .filter(l -> l.getName().equals(label))
        .map(l -> l.getValue())
        .distinct()
        .toList();
  }

  private static String callTool(String name, String args) throws Exception {
    HttpResponse<String> r =
        post("/tools/call", "{\"name\":\"" + name + "\",\"arguments\":" + args + "}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  private static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

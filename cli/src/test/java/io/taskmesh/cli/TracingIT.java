package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.servicekit.trace.Tracing;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One task's trace across the real dev stack (gateway, two actors with their Python runtimes,
 * x-sink, real broker): the spans, recorded by the OpenTelemetry SDK into an in-memory exporter,
 * share one trace id and chain gateway -> first -> second -> x-sink through their parent ids; the
 * handlers are given their actor's span context in {@code headers}; a client's {@code traceparent}
 * (tools/call, A2A) makes the gateway's span a child of the client's.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TracingIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final InMemorySpanExporter SPANS = InMemorySpanExporter.create();
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Tracing.use(Tracing.exportingTo(SPANS, "taskmesh-tracing-it", false));
    Path config = Path.of(TracingIT.class.getResource("/tracing-dev").toURI());
    stack = TestStacks.onSharedBroker(config, data, "it");
    base = stack.gatewayUrl();
  }

  @AfterAll
  static void stop() {
    try {
      if (stack != null) {
        stack.close();
      }
    } finally {
      Tracing.use(Tracing.off()); // the other ITs of this JVM run with tracing off, as by default
    }
  }

  @Test
  void aClientsTraceIsContinuedThroughTheGatewayEachActorAndXSink() throws Exception {
    String clientTrace = "4bf92f3577b34da6a3ce929d0e0e4736";
    String clientSpan = "00f067aa0ba902b7";
    String id =
        callTool(
            "{\"name\":\"traced\",\"arguments\":{\"n\":1}}",
            Map.of(
                "traceparent",
                "00-" + clientTrace + "-" + clientSpan + "-01",
                "tracestate",
                "client=abc"));
    JsonNode task = awaitFinal(id);
    assertThat(task.get("status").asText()).as(task.toString()).isEqualTo("succeeded");

    Map<String, SpanData> chain = chainOf(id);
    SpanData gateway = chain.get("start traced");
    assertThat(chain.values()).extracting(SpanData::getTraceId).containsOnly(clientTrace);
    assertThat(gateway.getParentSpanId()).isEqualTo(clientSpan);
    assertThat(gateway.getSpanContext().getTraceState().get("client")).isEqualTo("abc");
    assertLinked(chain, task);
  }

  @Test
  void aTaskWithoutAClientTraceStartsOneAtTheGateway() throws Exception {
    String id = callTool("{\"name\":\"traced\",\"arguments\":{\"n\":2}}", Map.of());
    JsonNode task = awaitFinal(id);
    Map<String, SpanData> chain = chainOf(id);
    SpanData gateway = chain.get("start traced");
    assertThat(gateway.getParentSpanId()).isEqualTo(SpanId.getInvalid());
    assertThat(chain.values()).extracting(SpanData::getTraceId).containsOnly(gateway.getTraceId());
    assertLinked(chain, task);
  }

  @Test
  void anA2aMessageWithATraceparentContinuesTheClientsTrace() throws Exception {
    String clientTrace = "0af7651916cd43dd8448eb211c80319c";
    String clientSpan = "b7ad6b7169203331";
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/a2a/"))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json")
                .header("traceparent", "00-" + clientTrace + "-" + clientSpan + "-01")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":"
                            + "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":"
                            + "\"t1\",\"parts\":[{\"kind\":\"text\",\"text\":\"hi\"}]},"
                            + "\"metadata\":{\"skill\":\"traced\"},"
                            + "\"configuration\":{\"blocking\":false}}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    String id = Json.MAPPER.readTree(r.body()).at("/result/id").asText();
    assertThat(id).as(r.body()).isNotEmpty();
    JsonNode task = awaitFinal(id);
    Map<String, SpanData> chain = chainOf(id);
    assertThat(chain.values()).extracting(SpanData::getTraceId).containsOnly(clientTrace);
    assertThat(chain.get("start traced").getParentSpanId()).isEqualTo(clientSpan);
    assertLinked(chain, task);
  }

  @Test
  void aFailingHandlerNamesItsActorCarriesItsTracebackAndEndsItsSpanWithError() throws Exception {
    String id = callTool("{\"name\":\"traced\",\"arguments\":{\"explode\":\"second\"}}", Map.of());
    JsonNode task = awaitFinal(id);
    assertThat(task.path("status").asText()).as(task.toString()).isEqualTo("failed");
    assertThat(task.path("error").asText()).isEqualTo("KeyError: 'missing'");
    assertThat(task.path("current_actor_name").asText()).isEqualTo("second");
    JsonNode details = task.path("error_details");
    assertThat(details.path("actor").asText()).isEqualTo("second");
    assertThat(details.path("type").asText()).isEqualTo("KeyError");
    assertThat(details.path("traceback").asText())
        .startsWith("Traceback (most recent call last):")
        .contains("traced.py", "return payload[\"missing\"]")
        .endsWith("KeyError: 'missing'\n");
    SpanData second = chainOf(id).get("process second");
    assertThat(second.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(second.getStatus().getDescription()).isEqualTo("KeyError");
    assertThat(second.getEvents())
        .anySatisfy(
            e -> {
              assertThat(e.getName()).isEqualTo("exception");
              assertThat(e.getAttributes().asMap().toString()).contains("KeyError");
            });
  }

  /**
   * gateway -> first -> second -> x-sink by parent span id, and each handler was given its own
   * actor's span as the {@code traceparent} (so a handler's own spans would nest under it).
   */
  private static void assertLinked(Map<String, SpanData> chain, JsonNode task) {
    SpanData gateway = chain.get("start traced");
    SpanData first = chain.get("process first");
    SpanData second = chain.get("process second");
    SpanData sink = chain.get("process x-sink");
    assertThat(first.getParentSpanId()).isEqualTo(gateway.getSpanId());
    assertThat(second.getParentSpanId()).isEqualTo(first.getSpanId());
    assertThat(sink.getParentSpanId()).isEqualTo(second.getSpanId());
    JsonNode seen = task.at("/result/seen");
    assertThat(seen).as(task.toString()).hasSize(2);
    assertThat(seen.get(0).get("actor").asText()).isEqualTo("first");
    assertThat(seen.get(0).get("traceparent").asText()).isEqualTo(traceparent(first));
    assertThat(seen.get(1).get("traceparent").asText()).isEqualTo(traceparent(second));
  }

  /** W3C form; the flags are the span's (sampled, and "random trace id" when the SDK made it). */
  private static String traceparent(SpanData s) {
    return "00-"
        + s.getTraceId()
        + "-"
        + s.getSpanId()
        + "-"
        + s.getSpanContext().getTraceFlags().asHex();
  }

  /** The spans of task {@code id} by name, once x-sink's has been recorded. */
  private static Map<String, SpanData> chainOf(String id) {
    List<SpanData> spans =
        Await.until(
            () -> spansOf(id),
            s -> s.stream().anyMatch(d -> d.getName().equals("process x-sink")),
            Duration.ofSeconds(30),
            "x-sink's span of " + id + " was never recorded");
    Map<String, SpanData> byName =
        spans.stream()
            .filter(s -> !s.getName().equals("process x-sump"))
            .collect(Collectors.toMap(SpanData::getName, Function.identity()));
    assertThat(byName)
        .as(spans.toString())
        .containsOnlyKeys("start traced", "process first", "process second", "process x-sink");
    return byName;
  }

  private static List<SpanData> spansOf(String id) {
    return SPANS.getFinishedSpanItems().stream()
        .filter(
            s ->
                id.equals(attribute(s, "taskmesh.task.id"))
                    || id.equals(attribute(s, "taskmesh.envelope.id")))
        .toList();
  }

  private static String attribute(SpanData s, String key) {
    return Optional.ofNullable(
            s.getAttributes().asMap().entrySet().stream()
                .filter(e -> e.getKey().getKey().equals(key))
                .map(e -> String.valueOf(e.getValue()))
                .findFirst()
                .orElse(null))
        .orElse(null);
  }

  private static JsonNode awaitFinal(String id) {
    // a task read right after tools/call may not be folded yet: 404 means "not yet", not a failure
    return Await.until(
        () -> taskOrEmpty(id),
        t -> t.has("status") && TaskStatus.fromWire(t.path("status").asText()).isFinal(),
        Duration.ofSeconds(60),
        "task " + id + " never ended");
  }

  private static String callTool(String body, Map<String, String> headers) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + "/tools/call"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    headers.forEach(b::header);
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  private static JsonNode taskOrEmpty(String id) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tasks/" + id)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() == 404) {
      return Json.MAPPER.createObjectNode();
    }
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }
}

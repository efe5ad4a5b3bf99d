package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every mesh-api route and error against a real connector, Postgres, Kafka and two replicas. */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class MeshApiIT {
  private static MeshFixture f;
  private static MeshFixture.Replica a;
  private static MeshFixture.Replica b;
  private static final String P = "/api/v1/mesh";

  @BeforeAll
  static void start() throws Exception {
    f = new MeshFixture(Map.of(), Map.of("SVC_MESH_API_KEEPALIVE_MS", "300"));
    a = f.a;
    b = f.b;
  }

  @AfterAll
  static void stop() throws Exception {
    f.close();
  }

  /** A Javalin app's routes as {@code "GET /path"} (its before/after handlers left out). */
  static Set<String> routes(Javalin app) {
    Set<HandlerType> methods =
        Set.of(
            HandlerType.GET,
            HandlerType.POST,
            HandlerType.PUT,
            HandlerType.PATCH,
            HandlerType.DELETE,
            HandlerType.HEAD);
    return app.unsafe.internalRouter.allHttpHandlers().stream()
        .map(parsed -> parsed.endpoint)
        .filter(e -> methods.contains(e.method))
        .map(e -> e.method.name() + " " + e.path)
        .collect(Collectors.toSet());
  }

  @Test
  void bothPortsServeExactlyTheDocumentedRoutes() {
    assertThat(routes(a.app.externalApp()))
        .containsExactlyInAnyOrderElementsOf(ApiDocument.operationsServedBy("mesh-api:external"));
    assertThat(routes(a.app.internalApp()))
        .containsExactlyInAnyOrderElementsOf(ApiDocument.operationsServedBy("mesh-api:internal"));
  }

  @Test
  void theExternalPortServesTheApiDocument() {
    MeshFixture.Resp r = f.send("GET", a.ext("/openapi.json"), null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.raw().headers().firstValue("content-type").orElse(""))
        .startsWith("application/json");
    assertThat(r.body()).isEqualTo(new String(ApiDocument.openApiJson(), StandardCharsets.UTF_8));
    assertThat(f.send("GET", a.internal("/openapi.json"), null).status()).isEqualTo(404);
  }

  static JsonNode json(MeshFixture.Resp r) {
    return Json.read(r.body(), JsonNode.class);
  }

  static void assertError(MeshFixture.Resp r, int status, String part) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.raw().headers().firstValue("content-type").orElse(""))
        .startsWith("application/json");
    assertThat(json(r).path("message").asText()).contains(part);
    assertThat(json(r).has("error")).isTrue();
  }

  String create(MeshFixture.Replica r, String actor, String body) {
    MeshFixture.Resp resp =
        f.send("POST", r.ext(P + "/?actor=" + actor + "&namespace=" + f.namespace), body);
    assertThat(resp.status()).as(resp.body()).isEqualTo(201);
    return json(resp).path("id").asText();
  }

  JsonNode get(MeshFixture.Replica r, String id) {
    MeshFixture.Resp resp = f.send("GET", r.ext(P + "/" + id), null);
    assertThat(resp.status()).as(resp.body()).isEqualTo(200);
    return json(resp);
  }

  MeshFixture.Resp event(MeshFixture.Replica r, String id, String body) {
    return f.send("POST", r.internal(P + "/" + id + "/events"), body);
  }

  long total() {
    return json(f.send("GET", a.ext(P + "/"), null)).path("total").asLong();
  }

  // ---- health

  @Test
  void healthOnBothPorts() {
    for (String url : List.of(a.ext("/health"), a.internal("/health"), b.ext("/health"))) {
      MeshFixture.Resp r = f.send("GET", url, null);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("OK");
      assertThat(r.raw().headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    }
  }

  // ---- create and dispatch

  @Test
  void createStoresPendingAndDispatchesTheEnvelope() throws Exception {
    String topic = Topics.actorQueue(f.namespace, "echo");
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, LocalKafka.shared().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "it-" + System.nanoTime());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    Instant before = Instant.now();
    String id =
        create(
            a,
            "echo",
            "{\"payload\":{\"text\":\"hi\"},\"headers\":{\"trace\":\"t1\",\"x-svc-gateway-url\":\"http://evil\",\"x-svc-gateway-protocol\":\"legacy\"},\"timeout\":30}");
    JsonNode got = get(a, id);
    assertThat(got.path("id").asText()).isEqualTo(id);
    assertThat(got.path("status").asText()).isEqualTo("pending");
    assertThat(got.path("data").path("actor").asText()).isEqualTo("echo");
    assertThat(got.path("data").path("namespace").asText()).isEqualTo(f.namespace);
    assertThat(got.path("data").path("payload").path("text").asText()).isEqualTo("hi");
    Instant deadline = Instant.parse(got.path("data").path("deadline_at").asText());
    assertThat(deadline).isBetween(before.plusSeconds(29), Instant.now().plusSeconds(31));
    assertThat(got.fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder("id", "status", "created_at", "updated_at", "data");

    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> recs = new ArrayList<>();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (recs.stream().noneMatch(r -> r.key().equals(id)) && System.nanoTime() < end) {
        c.poll(Duration.ofMillis(200)).forEach(recs::add);
      }
      ConsumerRecord<String, String> rec =
          recs.stream().filter(r -> r.key().equals(id)).findFirst().orElseThrow();
      Envelope env = Json.read(rec.value(), Envelope.class);
      assertThat(env.id()).isEqualTo(id);
      assertThat(env.route().prev()).isEmpty();
      assertThat(env.route().curr()).isEqualTo("echo");
      assertThat(env.route().next()).isEmpty();
      assertThat(env.status().phase()).isEqualTo(EnvelopePhase.PENDING);
      assertThat(env.status().createdAt()).isNotNull();
      assertThat(env.status().deadlineAt())
          .isEqualTo(got.path("data").path("deadline_at").asText());
      assertThat(env.payload().path("text").asText()).isEqualTo("hi");
      assertThat(env.header("trace")).isEqualTo("t1");
      assertThat(env.header(Envelope.GATEWAY_URL_HEADER))
          .isEqualTo("http://127.0.0.1:" + a.app.internalPort() + "/api/v1");
      assertThat(env.header(Envelope.GATEWAY_PROTOCOL_HEADER)).isEqualTo(Envelope.EVENTS_PROTOCOL);
      // what a sidecar does with it: POST {x-svc-gateway-url}/mesh/{id}/events
      MeshFixture.Resp r =
          f.send(
              "POST",
              env.header(Envelope.GATEWAY_URL_HEADER) + "/mesh/" + id + "/events",
              "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"echo\",\"progress\":10}}");
      assertThat(r.status()).isEqualTo(204);
    }
    assertThat(get(b, id).path("status").asText()).isEqualTo("running");
  }

  @Test
  void createWithoutBodyOrTimeoutAndDefaultNamespace() {
    MeshFixture.Resp r = f.send("POST", a.ext(P + "?actor=echo"), null);
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    JsonNode got = get(a, json(r).path("id").asText());
    assertThat(got.path("data").path("namespace").asText()).isEqualTo(f.namespace);
    assertThat(got.path("data").has("deadline_at")).isFalse();
  }

  @ParameterizedTest(name = "{0} {1} -> {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "?namespace=x                 | {}                              | 'actor' is required",
        "?actor=a%20b                 | {}                              | may only contain",
        "?actor=x-sink                | {}                              | crew actor",
        "?actor=echo&namespace=a/b    | {}                              | namespace 'a/b'",
        "?actor=echo                  | not json                        | not valid JSON",
        "?actor=echo                  | {\"payload\":1} x               | not valid JSON at line 1, column 15",
        "?actor=echo                  | [1,2]                           | must be a JSON object",
        "?actor=echo                  | {\"paylod\":1}                  | unknown field 'paylod'",
        "?actor=echo                  | {\"headers\":[1]}               | 'headers' must be an object",
        "?actor=echo                  | {\"headers\":{\"a\":{\"b\":1}}} | header 'a' must be",
        "?actor=echo                  | {\"timeout\":0}                 | 'timeout' must be",
        "?actor=echo                  | {\"timeout\":-5}                | 'timeout' must be",
        "?actor=echo                  | {\"timeout\":\"10\"}            | 'timeout' must be",
        "?actor=echo                  | {\"payload\":{\"a\":[\"x\\u0000y\"]}} | field 'payload.a[0]' holds the character",
        "?actor=echo                  | {\"payload\":\"\\u0000\"}          | field 'payload' holds the character",
        "?actor=echo                  | {\"headers\":{\"h\":\"a\\u0000\"}}   | field 'headers.h' holds the character",
      })
  void badCreatesAre400AndCreateNothing(String query, String body, String message) {
    long before = total();
    assertError(f.send("POST", a.ext(P + "/" + query.trim()), body), 400, message);
    assertThat(total()).isEqualTo(before);
  }

  @Test
  void createWithoutAnyNamespaceIs400() {
    long before = total();
    assertError(f.send("POST", b.ext(P + "/?actor=echo"), "{}"), 400, "'namespace' is required");
    assertThat(total()).isEqualTo(before);
  }

  @Test
  void oversizedBodiesAre413() {
    String big = "{\"payload\":\"" + "x".repeat(MeshApiApp.MAX_BODY_BYTES) + "\"}";
    long before = total();
    assertError(f.send("POST", a.ext(P + "/?actor=echo"), big), 413, "larger than");
    assertThat(total()).isEqualTo(before);
    String id = create(a, "echo", "{}");
    assertError(
        event(
            a,
            id,
            "{\"type\":\"fly\",\"data\":{\"t\":\""
                + "x".repeat(MeshApiApp.MAX_BODY_BYTES)
                + "\"}}"),
        413,
        "larger than");
  }

  // ---- list, get

  @Test
  void listNewestFirstWithStatusFilterPagingAndRealTotal() {
    String id1 = create(a, "echo", "{}");
    String id2 = create(b, "echo", "{}");
    String id3 = create(a, "echo", "{}");
    assertThat(event(b, id2, "{\"type\":\"status\",\"status\":\"paused\"}").status())
        .isEqualTo(204);
    JsonNode all = json(f.send("GET", a.ext(P + "/"), null));
    List<String> ids = new ArrayList<>();
    all.path("messages").forEach(m -> ids.add(m.path("id").asText()));
    assertThat(ids).containsSubsequence(id3, id2, id1);
    assertThat(all.path("total").asLong()).isEqualTo(ids.size());
    JsonNode first = all.path("messages").get(0);
    assertThat(first.fieldNames())
        .toIterable()
        .containsExactlyInAnyOrder("id", "status", "created_at", "updated_at", "data");

    JsonNode page = json(f.send("GET", a.ext(P + "?limit=1&offset=1"), null));
    assertThat(page.path("messages")).hasSize(1);
    assertThat(page.path("messages").get(0).path("id").asText()).isEqualTo(ids.get(1));
    assertThat(page.path("total").asLong()).isEqualTo(ids.size());

    JsonNode paused = json(f.send("GET", b.ext(P + "/?status=paused"), null));
    assertThat(paused.path("messages"))
        .allSatisfy(m -> assertThat(m.path("status").asText()).isEqualTo("paused"));
    assertThat(paused.path("messages").toString()).contains(id2);
    assertThat(paused.path("total").asLong()).isEqualTo(paused.path("messages").size());
    assertThat(
            json(f.send("GET", a.ext(P + "/?status=paused&limit=0"), null)).path("total").asLong())
        .isEqualTo(paused.path("total").asLong());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "?status=done   | 'status' must be one of",
        "?limit=-1      | 'limit' must be",
        "?limit=ten     | 'limit' must be",
        "?offset=-2     | 'offset' must be",
      })
  void badListParamsAre400(String query, String message) {
    assertError(f.send("GET", a.ext(P + "/" + query.trim()), null), 400, message);
  }

  @Test
  void unknownIdsAre404Everywhere() {
    for (String id :
        List.of("00000000-0000-0000-0000-000000000000", "no%20such", "x".repeat(300))) {
      assertError(f.send("GET", a.ext(P + "/" + id), null), 404, "not found");
      assertError(f.send("GET", a.internal(P + "/" + id), null), 404, "not found");
      assertError(f.send("DELETE", a.ext(P + "/" + id), null), 404, "not found");
      assertError(f.send("GET", a.ext(P + "/" + id + "/events"), null), 404, "not found");
      assertError(event(b, id, "{\"type\":\"status\",\"status\":\"running\"}"), 404, "not found");
      assertError(event(b, id, "{\"type\":\"fly\",\"data\":{}}"), 404, "not found");
    }
  }

  @Test
  void internalGetIsTheSameAsExternal() {
    String id = create(a, "echo", "{\"payload\":[1]}");
    assertThat(json(f.send("GET", b.internal(P + "/" + id), null))).isEqualTo(get(a, id));
    // external-only and internal-only routes are not crossed
    assertWrongMethod(
        f.send("POST", a.ext(P + "/" + id + "/events"), "{\"type\":\"fly\",\"data\":{}}"), "GET");
    assertWrongMethod(f.send("DELETE", a.internal(P + "/" + id), null), "GET");
  }

  @Test
  void aWrongMethodOnAKnownRouteIs405WithAllow() {
    String id = create(a, "echo", "{}");
    assertWrongMethod(f.send("PUT", a.ext(P + "/" + id), "{}"), "GET", "DELETE");
    assertWrongMethod(f.send("DELETE", a.ext(P), null), "GET", "POST");
    assertWrongMethod(f.send("GET", a.internal(P + "/" + id + "/events"), null), "POST");
    assertError(f.send("PUT", a.ext(P + "/" + id + "/nothing-here"), "{}"), 404, "");
  }

  static void assertWrongMethod(MeshFixture.Resp r, String... allowed) {
    assertError(r, 405, "");
    assertThat(json(r).path("error").asText()).isEqualTo("method_not_allowed");
    String allow = r.raw().headers().firstValue("Allow").orElse("");
    assertThat(allow.split(",\\s*")).containsExactlyInAnyOrder(allowed);
  }

  // ---- status ordering, cancel

  @Test
  void statusOnlyMovesUpAndStaleUpdatesAre204() {
    String id = create(a, "echo", "{}");
    assertThat(
            event(
                    a,
                    id,
                    "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"echo\",\"progress\":40}}")
                .status())
        .isEqualTo(204);
    assertThat(event(b, id, "{\"type\":\"status\",\"status\":\"pending\"}").status())
        .isEqualTo(204);
    JsonNode g = get(a, id);
    assertThat(g.path("status").asText()).isEqualTo("running");
    assertThat(g.path("data").path("progress").asInt()).isEqualTo(40);
    assertThat(g.path("data").path("current_actor").asText()).isEqualTo("echo");
    // same status refreshes progress, never lowers it
    event(a, id, "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"progress\":20}}");
    assertThat(get(a, id).path("data").path("progress").asInt()).isEqualTo(40);
    event(a, id, "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"progress\":70}}");
    assertThat(get(a, id).path("data").path("progress").asInt()).isEqualTo(70);
    assertThat(
            event(
                    b,
                    id,
                    "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"x-sink\",\"result\":{\"ok\":true}}}")
                .status())
        .isEqualTo(204);
    String updated = get(a, id).path("updated_at").asText();
    for (String late : List.of("failed", "canceled", "running", "paused", "succeeded")) {
      assertThat(event(a, id, "{\"type\":\"status\",\"status\":\"" + late + "\"}").status())
          .isEqualTo(204);
    }
    assertThat(f.send("DELETE", a.ext(P + "/" + id), null).status()).isEqualTo(204);
    JsonNode done = get(b, id);
    assertThat(done.path("status").asText()).isEqualTo("succeeded");
    assertThat(done.path("updated_at").asText()).isEqualTo(updated);
    assertThat(done.path("data").path("result").path("ok").asBoolean()).isTrue();
    assertThat(done.path("data").path("progress").asInt()).isEqualTo(100);
  }

  @Test
  void cancelIsIdempotent() {
    String id = create(a, "echo", "{}");
    assertThat(f.send("DELETE", a.ext(P + "/" + id), null).status()).isEqualTo(204);
    assertThat(get(a, id).path("status").asText()).isEqualTo("canceled");
    assertThat(f.send("DELETE", b.ext(P + "/" + id), null).status()).isEqualTo(204);
    assertThat(event(a, id, "{\"type\":\"status\",\"status\":\"succeeded\"}").status())
        .isEqualTo(204);
    assertThat(get(a, id).path("status").asText()).isEqualTo("canceled");
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "not json                                                   | not valid JSON",
        "''                                                         | must be a JSON object",
        "[]                                                         | must be a JSON object",
        "{}                                                         | 'type' must be",
        "{\"type\":\"final\"}                                       | 'type' must be",
        "{\"type\":\"status\"}                                      | 'status' must be one of",
        "{\"type\":\"status\",\"status\":\"done\"}                  | 'status' must be one of",
        "{\"type\":\"status\",\"status\":1}                         | 'status' must be one of",
        "{\"type\":\"status\",\"status\":\"running\",\"data\":[]}   | 'data' must be an object",
        "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"progress\":150}} | 'data.progress'",
        "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"progress\":\"5\"}} | 'data.progress'",
        "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":5}} | 'data.actor'",
        "{\"type\":\"fly\"}                                         | 'data' of a fly event",
        "{\"type\":\"fly\",\"data\":\"tok\"}                        | 'data' of a fly event",
      })
  void badEventsAre400AndChangeNothing(String body, String message) {
    String id = create(a, "echo", "{}");
    JsonNode before = get(a, id);
    assertError(event(b, id, body), 400, message);
    assertThat(get(a, id)).isEqualTo(before);
  }

  // ---- SSE

  @Test
  void sseOnReplicaAGetsEventsPostedToReplicaB() throws Exception {
    String id = create(a, "echo", "{}");
    try (SseReader sse = new SseReader(f.http, a.ext(P + "/" + id + "/events"))) {
      assertThat(sse.response.statusCode()).isEqualTo(200);
      assertThat(sse.response.headers().firstValue("content-type").orElse(""))
          .startsWith("text/event-stream");
      assertThat(sse.response.headers().firstValue("cache-control").orElse(""))
          .isEqualTo("no-cache");
      SseReader.Frame first = sse.next(10);
      assertThat(first.event()).isEqualTo("status");
      assertThat(Json.read(first.data(), JsonNode.class).path("status").asText())
          .isEqualTo("pending");
      assertThat(Json.read(first.data(), JsonNode.class).path("actor").asText()).isEqualTo("echo");

      assertThat(
              event(
                      b,
                      id,
                      "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"echo\",\"progress\":10}}")
                  .status())
          .isEqualTo(204);
      SseReader.Frame running = sse.next(10);
      assertThat(running.event()).isEqualTo("status");
      JsonNode rd = Json.read(running.data(), JsonNode.class);
      assertThat(rd.path("status").asText()).isEqualTo("running");
      assertThat(rd.path("actor").asText()).isEqualTo("echo");
      assertThat(rd.path("progress").asInt()).isEqualTo(10);

      assertThat(
              event(b, id, "{\"type\":\"fly\",\"data\":{\"type\":\"partial\",\"token\":\"Hel\"}}")
                  .status())
          .isEqualTo(204);
      SseReader.Frame fly = sse.next(10);
      assertThat(fly.event()).isEqualTo("fly");
      assertThat(Json.read(fly.data(), JsonNode.class).path("token").asText()).isEqualTo("Hel");

      assertThat(
              event(
                      b,
                      id,
                      "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"x-sink\",\"progress\":100}}")
                  .status())
          .isEqualTo(204);
      SseReader.Frame done = sse.next(10);
      assertThat(Json.read(done.data(), JsonNode.class).path("status").asText())
          .isEqualTo("succeeded");
      assertThat(sse.awaitEnd(10)).as("stream closes after a terminal status").isTrue();
    }
    // FLY is never stored
    assertThat(get(a, id).toString()).doesNotContain("Hel");
    Await.until(() -> a.app.openStreams() == 0, Duration.ofSeconds(10), "stream released");
  }

  @Test
  void sseOnATerminalEnvelopeSendsOneEventAndCloses() throws Exception {
    String id = create(a, "echo", "{}");
    f.send("DELETE", a.ext(P + "/" + id), null);
    int subscribed = b.bus.subscriberCount();
    try (SseReader sse = new SseReader(f.http, b.ext(P + "/" + id + "/events"))) {
      SseReader.Frame only = sse.next(10);
      assertThat(Json.read(only.data(), JsonNode.class).path("status").asText())
          .isEqualTo("canceled");
      assertThat(sse.awaitEnd(10)).isTrue();
      assertThat(sse.all).hasSize(1);
      assertThat(sse.response.headers().firstValue("content-type").orElse(""))
          .startsWith("text/event-stream");
      assertThat(sse.response.headers().firstValue("cache-control")).contains("no-cache");
    }
    // answered from the one store read: the subscription taken before it is gone again, as after a
    // 404
    assertError(f.send("GET", b.ext(P + "/" + UUID.randomUUID() + "/events"), null), 404, "");
    assertThat(b.bus.subscriberCount()).isLessThanOrEqualTo(subscribed);
  }

  @Test
  void sseSendsKeepaliveComments() throws Exception {
    String id = create(a, "echo", "{}");
    try (SseReader sse = new SseReader(f.http, b.ext(P + "/" + id + "/events"))) {
      sse.next(10);
      Await.until(
          () -> sse.all.stream().anyMatch(fr -> ":keepalive".equals(fr.comment())),
          Duration.ofSeconds(10),
          ":keepalive comment");
    }
  }

  @Test
  void sseClientsAreReleasedWhenTheyGoAway() throws Exception {
    String id = create(a, "echo", "{}");
    int before = b.app.openStreams();
    SseReader sse = new SseReader(f.http, b.ext(P + "/" + id + "/events"));
    sse.next(10);
    assertThat(b.app.openStreams()).isEqualTo(before + 1);
    sse.close();
    // the next keepalive write (300 ms on B) fails and releases the stream
    Await.until(
        () -> b.app.openStreams() == before, Duration.ofSeconds(15), "dead SSE client released");
  }

  // ---- deadline backstop

  @Test
  void aPassedDeadlineFailsTheEnvelopeOnceAcrossReplicas() throws Exception {
    String id = create(a, "echo", "{\"timeout\":0.5}");
    try (SseReader sse = new SseReader(f.http, b.ext(P + "/" + id + "/events"))) {
      assertThat(Json.read(sse.next(10).data(), JsonNode.class).path("status").asText())
          .isEqualTo("pending");
      SseReader.Frame failed = sse.next(20);
      JsonNode d = Json.read(failed.data(), JsonNode.class);
      assertThat(d.path("status").asText()).isEqualTo("failed");
      assertThat(d.path("error").asText()).isEqualTo("deadline exceeded");
      assertThat(sse.awaitEnd(10)).isTrue();
    }
    JsonNode g = get(a, id);
    assertThat(g.path("status").asText()).isEqualTo("failed");
    assertThat(g.path("data").path("error").asText()).isEqualTo("deadline exceeded");
    // an envelope that finished in time is left alone
    String ok = create(a, "echo", "{\"timeout\":1}");
    event(b, ok, "{\"type\":\"status\",\"status\":\"succeeded\"}");
    Thread.sleep(1500); // let the deadline pass and at least two scans of each replica run
    assertThat(get(a, ok).path("status").asText()).isEqualTo("succeeded");
  }
}

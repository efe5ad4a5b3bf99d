package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The mesh mode's routes (what sidecars and legacy fan-out call), in-process over in-memory ports:
 * the 4xx matrix of every route, each refusal appending nothing and delivering no FLY event; each
 * route's happy path once; the api routes do not exist here.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EdgeMeshRoutesTest {
  private static final Duration WAIT = Duration.ofSeconds(5);
  private static final String TASK = "mesh-known";
  private static EdgeGateway gateway;
  private static final List<JsonNode> flyHeard = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void start() {
    gateway = EdgeGateway.start(GatewayMode.MESH);
    gateway.seedTask(TASK, null);
    gateway.fly.subscribe(TASK, flyHeard::add);
  }

  @AfterAll
  static void stop() throws Exception {
    gateway.close();
  }

  static Stream<BadRequest> refused() {
    String progress = "/mesh/" + TASK + "/progress";
    String fin = "/mesh/" + TASK + "/final";
    String fly = "/mesh/" + TASK + "/fly";
    return Stream.of(
        new BadRequest("unknown task", "GET", "/mesh/no-such-task", null, 404),
        new BadRequest("unknown task", "GET", "/mesh/no-such-task/active", null, 404),
        BadRequest.post("malformed JSON", progress, "{\"curr\":", 400),
        BadRequest.post("not an object", progress, "[\"a\"]", 400),
        BadRequest.post("neither form", progress, "{\"message\":\"hi\"}", 400),
        BadRequest.post("curr of the wrong type", progress, "{\"curr\":{\"a\":1}}", 400),
        BadRequest.post(
            "actors of the wrong type",
            progress,
            "{\"actors\":\"a\",\"current_actor_idx\":0}",
            400),
        BadRequest.post(
            "index outside actors", progress, "{\"actors\":[\"a\"],\"current_actor_idx\":1}", 400),
        BadRequest.post(
            "negative index", progress, "{\"actors\":[\"a\"],\"current_actor_idx\":-1}", 400),
        BadRequest.post(
            "index as a string", progress, "{\"actors\":[\"a\"],\"current_actor_idx\":\"0\"}", 400),
        BadRequest.post(
            "index as a fraction",
            progress,
            "{\"actors\":[\"a\",\"b\"],\"current_actor_idx\":0.5}",
            400),
        BadRequest.post("oversized body", progress, BadRequest.OVERSIZED, 413),
        BadRequest.post("malformed JSON", fin, "{", 400),
        BadRequest.post("empty body", fin, "", 400),
        BadRequest.post("not an object", fin, "\"succeeded\"", 400),
        BadRequest.post("no status", fin, "{\"result\":1}", 400),
        BadRequest.post("status not an outcome", fin, "{\"status\":\"running\"}", 400),
        BadRequest.post("status of the wrong type", fin, "{\"status\":[\"succeeded\"]}", 400),
        BadRequest.post(
            "id other than the path's", fin, "{\"id\":\"other\",\"status\":\"succeeded\"}", 400),
        BadRequest.post("id of the wrong type", fin, "{\"id\":7,\"status\":\"succeeded\"}", 400),
        BadRequest.post(
            "error not a string", fin, "{\"status\":\"failed\",\"error\":{\"why\":1}}", 400),
        BadRequest.post("error a number", fin, "{\"status\":\"failed\",\"error\":5}", 400),
        BadRequest.post("oversized body", fin, BadRequest.OVERSIZED, 413),
        BadRequest.post("malformed JSON", "/mesh", "{\"id\":", 400),
        BadRequest.post("not an object", "/mesh", "[]", 400),
        BadRequest.post("no id", "/mesh", "{\"curr\":\"a\"}", 400),
        BadRequest.post("no curr", "/mesh", "{\"id\":\"c1\"}", 400),
        BadRequest.post("blank id", "/mesh", "{\"id\":\" \",\"curr\":\"a\"}", 400),
        BadRequest.post("id with a slash", "/mesh", "{\"id\":\"a/b\",\"curr\":\"a\"}", 400),
        BadRequest.post("id of the wrong type", "/mesh", "{\"id\":5,\"curr\":\"a\"}", 400),
        BadRequest.post(
            "prev not an array", "/mesh", "{\"id\":\"c1\",\"curr\":\"a\",\"prev\":\"x\"}", 400),
        BadRequest.post(
            "next with a number", "/mesh", "{\"id\":\"c1\",\"curr\":\"a\",\"next\":[1]}", 400),
        // issue 33 item 9: each of these was a 201 that created nothing reachable or changed
        // nothing
        BadRequest.post("id with a NUL", "/mesh", "{\"id\":\"a\\u0000b\",\"curr\":\"a\"}", 400),
        BadRequest.post("id with a line break", "/mesh", "{\"id\":\"a\\nb\",\"curr\":\"a\"}", 400),
        BadRequest.post("curr a crew actor", "/mesh", "{\"id\":\"c5\",\"curr\":\"x-sink\"}", 400),
        BadRequest.post("an existing id", "/mesh", "{\"id\":\"" + TASK + "\",\"curr\":\"a\"}", 409),
        BadRequest.post(
            "current a crew actor",
            "/tasks",
            "{\"id\":\"c6\",\"actors\":[\"a\",\"x-sink\"],\"current\":1}",
            400),
        BadRequest.post(
            "an actor with a NUL",
            "/tasks",
            "{\"id\":\"c6\",\"actors\":[\"a\\u0000\"],\"current\":0}",
            400),
        BadRequest.post("oversized body", "/mesh", BadRequest.OVERSIZED, 413),
        BadRequest.post("malformed JSON", "/tasks", "[{", 400),
        BadRequest.post("empty array", "/tasks", "[]", 400),
        BadRequest.post("no actors", "/tasks", "{\"id\":\"c2\",\"current\":0}", 400),
        BadRequest.post(
            "empty actors", "/tasks", "{\"id\":\"c2\",\"actors\":[],\"current\":0}", 400),
        BadRequest.post(
            "current of the wrong type",
            "/tasks",
            "{\"id\":\"c2\",\"actors\":[\"a\"],\"current\":\"0\"}",
            400),
        BadRequest.post(
            "current outside actors",
            "/tasks",
            "{\"id\":\"c2\",\"actors\":[\"a\"],\"current\":1}",
            400),
        BadRequest.post(
            "negative index",
            "/tasks",
            "{\"id\":\"c2\",\"actors\":[\"a\"],\"current\":0,\"index\":-1}",
            400),
        BadRequest.post(
            "a bad second child: none is created",
            "/tasks",
            "[{\"id\":\"c3\",\"actors\":[\"a\"],\"current\":0},{\"id\":\"c3\",\"actors\":[\"a\"],\"current\":2}]",
            400),
        BadRequest.post(
            "two children with one id",
            "/tasks",
            "[{\"id\":\"c4\",\"actors\":[\"a\"],\"current\":0},{\"id\":\"c4\",\"actors\":[\"a\"],\"current\":0,\"index\":0}]",
            400),
        BadRequest.post("oversized body", "/tasks", BadRequest.OVERSIZED, 413),
        BadRequest.post("malformed JSON", fly, "{\"type\":", 400),
        BadRequest.post("not an object", fly, "[1,2]", 400),
        BadRequest.post("oversized body", fly, BadRequest.OVERSIZED, 413),
        new BadRequest("wrong method", "GET", "/mesh", null, 405),
        new BadRequest("wrong method", "PUT", fin, "{\"status\":\"succeeded\"}", 405),
        new BadRequest("wrong method", "DELETE", "/mesh/" + TASK, null, 405),
        // GET /mesh/{id} with the id "config-reload": a read of an unknown task
        new BadRequest("unknown task", "GET", "/mesh/config-reload", null, 404));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusedRequestsChangeNothing(BadRequest bad) {
    String before = gateway.recorded();
    int flyBefore = flyHeard.size();
    HttpResponse<String> r = gateway.send(bad.method(), bad.path(), bad.body());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(bad.status());
    if (bad.status() == 405) {
      assertThat(r.headers().firstValue("Allow"))
          .get(InstanceOfAssertFactories.STRING)
          .isNotBlank()
          .doesNotContain(bad.method());
    }
    assertThat(gateway.recorded()).isEqualTo(before);
    assertThat(flyHeard).hasSize(flyBefore);
    assertThat(gateway.tasks.get(TASK).orElseThrow().status()).isEqualTo(TaskStatus.PENDING);
  }

  @Test
  void aWrongMethodNamesTheAllowedOnes() {
    assertThat(gateway.send("PUT", "/mesh/" + TASK + "/final", "{}").headers().firstValue("Allow"))
        .contains("POST");
    assertThat(
            gateway.send("DELETE", "/mesh/" + TASK + "/stream", null).headers().firstValue("Allow"))
        .contains("GET");
    assertThat(gateway.send("GET", "/tasks", null).headers().firstValue("Allow")).contains("POST");
  }

  @Test
  void apiRoutesDoNotExistInMeshMode() {
    for (String route :
        List.of(
            "POST /tools/call",
            "GET /stream/" + TASK,
            "POST /a2a/",
            "POST /mcp",
            "GET /mcp/sse",
            "GET /.well-known/agent.json",
            "GET /.well-known/agent-card.json")) {
      String[] mp = route.split(" ");
      assertThat(gateway.status(mp[0], mp[1], mp[0].equals("POST") ? "{}" : null))
          .as(route)
          .isEqualTo(404);
    }
  }

  @Test
  void aMeshChildIsCreatedAndReadsInTheMeshForm() {
    HttpResponse<String> r =
        gateway.post(
            "/mesh",
            "{\"id\":\"child-a\",\"parent_id\":\""
                + TASK
                + "\",\"prev\":[\"echo\"],\"curr\":\"upper\",\"next\":[],"
                + "\"payload\":{\"k\":1}}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    assertThat(EdgeGateway.json(r).get("id").asText()).isEqualTo("child-a");
    assertThat(gateway.tasks.eventsOf("child-a"))
        .extracting(TaskEvent::type)
        .containsExactly(TaskEvent.CHILD_CREATED);
    JsonNode mesh = EdgeGateway.json(gateway.get("/mesh/child-a"));
    assertThat(mesh.get("parent_id").asText()).isEqualTo(TASK);
    assertThat(mesh.get("context_id").asText()).isEqualTo(TASK);
    assertThat(mesh.get("route").get("curr").asText()).isEqualTo("upper");
    assertThat(mesh.get("payload").get("k").asInt()).isEqualTo(1);
    assertThat(mesh.get("result").isNull()).isTrue();
  }

  @Test
  void aFanOutCreatesOneChildPerFrame() {
    HttpResponse<String> r =
        gateway.post(
            "/tasks",
            "[{\"id\":\"fan\",\"actors\":[\"a\",\"b\"],\"current\":1},"
                + "{\"id\":\"fan\",\"actors\":[\"a\",\"b\"],\"current\":0}]");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    assertThat(EdgeGateway.json(r).get("ids"))
        .extracting(JsonNode::asText)
        .containsExactly("fan", "fan-1");
    assertThat(gateway.tasks.get("fan-1").orElseThrow().currentActorName()).isEqualTo("a");
  }

  @Test
  void progressThenFinalThenInactive() {
    String id = gateway.seedTask("mesh-life", null);
    assertThat(gateway.get("/mesh/" + id + "/active").statusCode()).isEqualTo(200);
    HttpResponse<String> p =
        gateway.post(
            "/mesh/" + id + "/progress",
            "{\"prev\":[],\"curr\":\"echo\",\"next\":[\"upper\"],\"status\":\"completed\"}");
    assertThat(p.statusCode()).as(p.body()).isEqualTo(200);
    assertThat(EdgeGateway.json(p).get("progress_percent").asDouble()).isPositive();
    assertThat(gateway.tasks.get(id).orElseThrow().status()).isEqualTo(TaskStatus.RUNNING);
    HttpResponse<String> f =
        gateway.post("/mesh/" + id + "/final", "{\"status\":\"succeeded\",\"result\":{\"v\":2}}");
    assertThat(f.statusCode()).as(f.body()).isEqualTo(200);
    HttpResponse<String> gone = gateway.get("/mesh/" + id + "/active");
    assertThat(gone.statusCode()).isEqualTo(410);
    assertThat(EdgeGateway.json(gone).get("active").asBoolean()).isFalse();
  }

  @Test
  void aPausedFinalParksTheTask() {
    String id = gateway.seedTask("mesh-paused", null);
    assertThat(gateway.post("/mesh/" + id + "/final", "{\"status\":\"paused\"}").statusCode())
        .isEqualTo(200);
    assertThat(gateway.tasks.get(id).orElseThrow().status()).isEqualTo(TaskStatus.PAUSED);
  }

  @Test
  void aFlyEventReachesTheTasksSubscribers() {
    int before = flyHeard.size();
    assertThat(
            gateway
                .post("/mesh/" + TASK + "/fly", "{\"type\":\"partial\",\"text\":\"hi\"}")
                .statusCode())
        .isEqualTo(200);
    assertThat(flyHeard).hasSize(before + 1);
    assertThat(flyHeard.get(before).get("text").asText()).isEqualTo("hi");
  }

  @Test
  void aFinishedTasksStreamReplaysItsHistoryAndCloses() throws Exception {
    String id = gateway.seedTask("mesh-stream", null);
    gateway.tasks.append(
        TaskEvent.finished(id, FinalReport.succeeded(id, null, "upper", Map.of())));
    try (SseReader stream = SseReader.open(gateway.url("/mesh/" + id + "/stream"), null)) {
      assertThat(stream.status()).isEqualTo(200);
      assertThat(stream.readUntilClosed(WAIT))
          .extracting(SseReader.Event::id)
          .containsExactly("1", "2");
    }
    try (SseReader resumed = SseReader.open(gateway.url("/mesh/" + id + "/stream"), "1")) {
      assertThat(resumed.readUntilClosed(WAIT))
          .extracting(SseReader.Event::id)
          .containsExactly("2");
    }
  }

  @Test
  void configReloadAnswersOk() {
    HttpResponse<String> r = gateway.post("/mesh/config-reload", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(EdgeGateway.json(r).get("status").asText()).isEqualTo("ok");
  }
}

package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Tool calls as MCP tasks (2025-11-25), tasks as resources, and resumable Streamable HTTP streams,
 * against a testing-mode gateway on a real broker whose actor reports the test posts itself (the
 * mesh routes), so each task's progress is known: the official TypeScript SDK client over both
 * transports and the newest (2.x) client in both eras, and raw HTTP for the stream's event ids,
 * priming event and redelivery, and for the sessionless 2026-07-28 revision's tasks extension and
 * subscriptions/listen.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class McpTasksIT {
  private static final String ACCEPT_BOTH = "application/json, text/event-stream";
  private static final String STATELESS = "2026-07-28";
  private static final String TASKS_EXT = "io.modelcontextprotocol/tasks";
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path dir;
  private static Gateway gateway;
  private static String base;
  private static Path nodeDir;

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        """
        flows:
          - name: pipeline
            entrypoint: upper
            route_next: [reverse, count]
            timeout: 120
            mcp: {}
        """);
    Map<String, String> env = TaskHttp.singleEnv("testing", dir, flows, "mcp-tasks-it");
    gateway = TaskHttp.start(env);
    base = "http://127.0.0.1:" + gateway.port();
    nodeDir = NodeClients.ensureInstalled();
  }

  @AfterAll
  static void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"streamable", "sse"})
  void theOfficialClientFollowsAToolCallAsATaskWithProgress(String transport) throws Exception {
    Map<String, JsonNode> events = runClientScript("mcp-tasks-check.mjs", transport, true);

    assertThat(events.get("capabilities").at("/tasks/requests/tools/call").isObject()).isTrue();
    assertThat(events.get("tools").at("/execution/pipeline/taskSupport").asText())
        .isEqualTo("optional");
    String id = events.get("created").get("taskId").asText();
    assertThat(events.get("created").get("status").asText()).isEqualTo("working");

    JsonNode result = events.get("result").get("result");
    assertReversedResult(result, id);
    assertThat(result.at("/_meta/io.modelcontextprotocol~1related-task/taskId").asText())
        .isEqualTo(id);

    JsonNode heard = events.get("heard");
    List<Double> percents = new ArrayList<>();
    heard.get("progress").forEach(p -> percents.add(p.get("progress").asDouble()));
    assertThat(percents).as(heard.toString()).hasSizeGreaterThanOrEqualTo(2).isSorted();
    assertThat(percents).doesNotHaveDuplicates();
    assertThat(percents.get(percents.size() - 1)).isEqualTo(100.0);
    assertThat(heard.get("progress").findValuesAsText("message"))
        .allMatch(m -> m.startsWith("actor "));
    assertActorStagesInOrder(heard.get("progress").findValuesAsText("message"));
    List<String> statuses = new ArrayList<>();
    heard.get("statuses").forEach(s -> statuses.add(s.asText()));
    assertThat(statuses).contains("input_required").last().isEqualTo("completed");
    assertThat(heard.get("elicited")).hasSize(1);
    assertThat(heard.at("/elicited/0/relatedTask").asText()).isEqualTo(id);
    assertThat(heard.at("/elicited/0/message").asText()).contains(id).contains("needs input");
    assertThat(heard.get("updated").asInt()).isPositive();

    assertThat(events.get("task").at("/task/status").asText()).isEqualTo("completed");
    assertThat(events.get("task").at("/task/pollInterval").asInt()).isPositive();
    assertThat(events.get("listed").get("ids")).extracting(JsonNode::asText).contains(id);
    JsonNode resource = Json.MAPPER.readTree(events.get("resource").get("text").asText());
    assertThat(resource.get("id").asText()).isEqualTo(id);
    assertThat(resource.get("status").asText()).isEqualTo("succeeded");
    assertThat(events.get("resource").get("mimeType").asText()).isEqualTo("application/json");
    assertThat(events.get("templates").get("uris"))
        .extracting(JsonNode::asText)
        .containsExactly("taskmesh://tasks/{id}");

    assertThat(events.get("cancelled").get("status").asText()).isEqualTo("cancelled");
    assertThat(events.get("cancel-again").at("/error/code").asInt()).isEqualTo(-32602);
  }

  /**
   * The 2026-07-28 era on the same endpoint: no session, every request carries its revision and
   * routing headers. The newest official client (2.x) speaks the era but not the tasks extension,
   * so this client is raw HTTP as the extension specifies it: it discovers the server, calls the
   * tool as a task, follows its progress with tasks/get, answers the pause's input request with
   * tasks/update, and reads the result inlined in the task.
   */
  @Test
  void aSessionlessClientFollowsATaskWithProgressAndAnswersItsInputWithTasksUpdate()
      throws Exception {
    JsonNode discovered = stateless("server/discover", Json.MAPPER.createObjectNode(), null);
    assertThat(discovered.at("/result/capabilities/extensions").has(TASKS_EXT)).isTrue();
    ObjectNode call = Json.MAPPER.createObjectNode().put("name", "pipeline");
    call.putObject("arguments").put("text", "abc");
    JsonNode created = stateless("tools/call", call, "pipeline").get("result");
    assertThat(created.get("resultType").asText()).isEqualTo("task");
    assertThat(created.get("status").asText()).isEqualTo("working");
    String id = created.get("taskId").asText();
    CompletableFuture<Void> pipeline =
        CompletableFuture.runAsync(
            () -> {
              try {
                runPipeline(id, true);
              } catch (Exception e) {
                throw new CompletionException(e);
              }
            });

    List<String> statuses = new ArrayList<>();
    List<Long> percents = new ArrayList<>();
    List<String> answered = new ArrayList<>();
    ObjectNode get = Json.MAPPER.createObjectNode().put("taskId", id);
    JsonNode done =
        Await.until(
            () -> {
              JsonNode t = stateless("tasks/get", get, id).get("result");
              String status = t.get("status").asText();
              if (statuses.isEmpty() || !statuses.get(statuses.size() - 1).equals(status)) {
                statuses.add(status);
              }
              long percent =
                  Long.parseLong(t.get("statusMessage").asText().replaceFirst("%.*", ""));
              if (percents.isEmpty() || percents.get(percents.size() - 1) != percent) {
                percents.add(percent);
              }
              if (status.equals("input_required") && answered.isEmpty()) {
                String key = t.get("inputRequests").fieldNames().next();
                assertThat(t.at("/inputRequests/" + key + "/method").asText())
                    .isEqualTo("elicitation/create");
                ObjectNode update = Json.MAPPER.createObjectNode().put("taskId", id);
                update
                    .putObject("inputResponses")
                    .putObject(key)
                    .put("action", "accept")
                    .putObject("content")
                    .put("text", "go on");
                JsonNode ack = stateless("tasks/update", update, id).get("result");
                assertThat(ack.get("resultType").asText()).isEqualTo("complete");
                answered.add(key);
              }
              return t;
            },
            t -> t.get("status").asText().equals("completed"),
            Duration.ofSeconds(90),
            "the task completes");
    pipeline.get(60, TimeUnit.SECONDS); // it saw the task paused, then running again

    assertThat(answered).hasSize(1);
    assertThat(statuses).contains("input_required").last().isEqualTo("completed");
    assertThat(percents).as(statuses.toString()).hasSizeGreaterThanOrEqualTo(2).isSorted();
    assertThat(percents.get(percents.size() - 1)).isEqualTo(100L);
    JsonNode result = done.get("result");
    assertThat(result.get("isError").asBoolean()).isFalse();
    assertThat(result.at("/structuredContent/result/text").asText()).isEqualTo("CBA");
    assertThat(result.has("_meta")).as("no related-task key inlined").isFalse();
    assertThat(result.get("resultType").asText()).isEqualTo("complete");
  }

  /**
   * The newest official TypeScript SDK client, the 2.x split package {@code
   * @modelcontextprotocol/client}, unmodified. 2026: it negotiates the era itself with {@code
   * server/discover}; it does not implement the tasks extension, so it calls the tool with a
   * progress token and hears the task's progress on the call's own stream, follows the task on
   * {@code subscriptions/listen} meanwhile, and gets the result when the task ends. 2025: it
   * initializes, calls the tool as a task, hears progress and task status, and {@code
   * tasks/result} gives the result.
   */
  @ParameterizedTest
  @ValueSource(strings = {"2026", "2025"})
  void theNewestOfficialClientRunsAToolCallAsATaskToCompletionWithProgress(String era)
      throws Exception {
    Map<String, JsonNode> events = runClientScript("mcp-client2-check.mjs", era, false);
    assertThat(events.get("closed").get("errors")).as("client errors").isEmpty();

    boolean modern = era.equals("2026");
    JsonNode connected = events.get("connected");
    assertThat(connected.get("era").asText()).isEqualTo(modern ? "modern" : "legacy");
    assertThat(connected.get("version").asText()).isEqualTo(modern ? STATELESS : "2025-11-25");
    assertThat(connected.get("discovered").asBoolean()).isEqualTo(modern);
    String id = events.get("created").get("taskId").asText();

    JsonNode result = events.get("result").get("result");
    if (modern) { // a plain call: the flow's result is the answer
      assertPlainReversedResult(result);
    } else {
      assertReversedResult(result, id);
    }

    JsonNode heard = events.get("heard");
    List<Double> percents = new ArrayList<>();
    heard.get("progress").forEach(p -> percents.add(p.get("progress").asDouble()));
    assertThat(percents).as(heard.toString()).hasSizeGreaterThanOrEqualTo(3).isSorted();
    assertThat(percents).doesNotHaveDuplicates();
    assertThat(percents.get(percents.size() - 1)).isEqualTo(100.0);
    assertActorStagesInOrder(heard.get("progress").findValuesAsText("message"));
    if (modern) {
      assertThat(connected.at("/capabilities/extensions").has(TASKS_EXT)).isTrue();
      assertThat(heard.at("/progress/0/message").asText()).isEqualTo("task " + id + " started");
      assertThat(events.get("created").at("/honored/resourceSubscriptions/0").asText())
          .isEqualTo("taskmesh://tasks/" + id);
      assertThat(heard.get("updated").asInt()).isPositive();
      assertThat(heard.get("listenClosed").asText()).isEqualTo("graceful");
      assertThat(Json.MAPPER.readTree(events.get("resource").get("text").asText()).get("status"))
          .hasToString("\"succeeded\"");
      assertThat(events.get("listen-tasks-without-extension").at("/error/code").asInt())
          .isEqualTo(-32021);
    } else {
      assertThat(events.get("created").get("status").asText()).isEqualTo("working");
      List<String> statuses = new ArrayList<>();
      heard.get("statuses").forEach(s -> statuses.add(s.asText()));
      assertThat(statuses).last().isEqualTo("completed");
      assertThat(heard.get("task").asText()).isEqualTo("completed");
    }
  }

  /**
   * The official tasks client, {@code @modelcontextprotocol/ext-tasks}, on the newest official SDK
   * client, both unmodified, run the tool as a task to completion with progress. 2026: the tasks
   * extension through the raw dispatch the package asks its host for; it polls {@code tasks/get}
   * (progress in the status message), answers the paused task's input request with {@code
   * tasks/update}, and takes the result inlined in the completed task. 2025: a task-augmented call
   * with a progress token, {@code tasks/get} polling, {@code tasks/result} once the task is final;
   * no pause here, since the package asks for {@code tasks/result} only then, and this gateway asks
   * a 2025 client for input on a pending {@code tasks/result}.
   */
  @ParameterizedTest
  @ValueSource(strings = {"2026", "2025"})
  void theOfficialTasksClientRunsAToolCallAsATaskToCompletionWithProgress(String era)
      throws Exception {
    boolean modern = era.equals("2026");
    Map<String, JsonNode> events = runClientScript("mcp-ext-tasks-check.mjs", era, modern);
    assertThat(events.get("closed").get("errors")).as("client errors").isEmpty();

    assertThat(events.get("connected").get("version").asText())
        .isEqualTo(modern ? STATELESS : "2025-11-25");
    assertThat(events.get("session").at("/capabilities/execution").asBoolean()).isTrue();
    JsonNode created = events.get("created");
    assertThat(created.get("kind").asText()).isEqualTo("task");
    String id = created.get("taskId").asText();
    assertThat(events.get("outcome").get("status").asText()).isEqualTo("completed");
    JsonNode result = events.get("result").get("result");
    assertThat(result.get("isError").asBoolean()).isFalse();
    assertThat(result.at("/structuredContent/task_id").asText()).isEqualTo(id);
    assertThat(result.at("/structuredContent/result/text").asText()).isEqualTo("CBA");

    JsonNode heard = events.get("heard");
    List<String> statuses = new ArrayList<>();
    heard.get("tasks").forEach(t -> statuses.add(t.get("status").asText()));
    assertThat(statuses).as(heard.toString()).last().isEqualTo("completed");
    if (modern) {
      // the package polls tasks/get: progress is the percent in each task's status message
      List<Long> percents = new ArrayList<>();
      heard.get("tasks").findValuesAsText("statusMessage").stream()
          .filter(m -> m.matches("\\d+% done.*"))
          .map(m -> Long.parseLong(m.replaceFirst("%.*", "")))
          .distinct()
          .forEach(percents::add);
      assertThat(percents).as(heard.toString()).hasSizeGreaterThanOrEqualTo(2).isSorted();
      assertThat(percents.get(percents.size() - 1)).isEqualTo(100L);
      assertThat(statuses).contains("input_required");
      assertThat(heard.get("elicited")).hasSize(1);
      assertThat(heard.at("/elicited/0/kind").asText()).isEqualTo("elicitation");
      assertThat(heard.at("/elicited/0/taskId").asText()).isEqualTo(id);
      assertThat(heard.at("/elicited/0/delivery").asText()).isEqualTo("task-update");
    } else {
      // the call carried a progress token: the task's progress arrives as notifications
      List<Double> percents = new ArrayList<>();
      heard.get("progress").forEach(p -> percents.add(p.get("progress").asDouble()));
      assertThat(percents).as(heard.toString()).hasSizeGreaterThanOrEqualTo(3).isSorted();
      assertThat(percents.get(percents.size() - 1)).isEqualTo(100.0);
      assertActorStagesInOrder(heard.get("progress").findValuesAsText("message"));
    }
  }

  /**
   * A successful tool result of task {@code id} of the test flow: "CBA" in the text content and in
   * the structured content, with the task id.
   */
  /**
   * The official 2.x client, in the session era, calls the tool plainly (no task), as agent
   * frameworks do: the call waits for the flow, its progress names the task first and ends at 100,
   * and the answer is the flow's result, as text and as structured content.
   */
  @Test
  void theNewestOfficialClientsPlainCallGetsTheFlowsResultWithProgressEndingAt100()
      throws Exception {
    Map<String, JsonNode> events = runClientScript("mcp-client2-check.mjs", "2025-plain", false);
    assertThat(events.get("closed").get("errors")).as("client errors").isEmpty();
    assertThat(events.get("connected").get("version").asText()).isEqualTo("2025-11-25");
    String id = events.get("created").get("taskId").asText();
    assertPlainReversedResult(events.get("result").get("result"));
    JsonNode heard = events.get("heard");
    List<Double> percents = new ArrayList<>();
    heard.get("progress").forEach(p -> percents.add(p.get("progress").asDouble()));
    assertThat(percents).as(heard.toString()).hasSizeGreaterThanOrEqualTo(3).isSorted();
    assertThat(percents).doesNotHaveDuplicates().endsWith(100.0);
    assertThat(heard.at("/progress/0/message").asText()).isEqualTo("task " + id + " started");
    assertActorStagesInOrder(heard.get("progress").findValuesAsText("message"));
  }

  private static void assertPlainReversedResult(JsonNode result) throws Exception {
    assertThat(result.get("isError").asBoolean()).as(result.toString()).isFalse();
    assertThat(Json.MAPPER.readTree(result.at("/content/0/text").asText()).get("text").asText())
        .isEqualTo("CBA");
    assertThat(result.at("/structuredContent/text").asText()).isEqualTo("CBA");
  }

  private static void assertReversedResult(JsonNode result, String id) throws Exception {
    assertThat(result.get("isError").asBoolean()).isFalse();
    assertThat(Json.MAPPER.readTree(result.at("/content/0/text").asText()).get("text").asText())
        .isEqualTo("CBA");
    assertThat(result.at("/structuredContent/task_id").asText()).isEqualTo(id);
    assertThat(result.at("/structuredContent/result/text").asText()).isEqualTo("CBA");
  }

  private static final Pattern ACTOR_STAGE = Pattern.compile("actor ([\\w-]+) \\(#(\\d+)\\)");

  /**
   * Progress follows the task's stored state, read again after each of its updates, so a fast
   * actor's whole stage can fall between two reads (seen in CI: no "actor upper (#0)"). What holds
   * whatever the timing: at least one stage is named, each by an actor of the flow (or the pause
   * actor a paused call inserts), and the stage numbers never go back. (The pause actor and the
   * actor after it can both be #1: a resumed pause hands the envelope on without counting itself as
   * a hop, as this test's own reports do.)
   */
  private static void assertActorStagesInOrder(List<String> messages) {
    List<String> actors = List.of("upper", "x-pause", "reverse", "count");
    List<Integer> stages = new ArrayList<>();
    for (String m : messages) {
      Matcher stage = ACTOR_STAGE.matcher(m);
      if (stage.matches()) {
        int index = Integer.parseInt(stage.group(2));
        assertThat(stage.group(1)).as(m).isIn(actors);
        stages.add(index);
      } else {
        assertThat(m).as("a progress message that names no stage").startsWith("task ");
      }
    }
    assertThat(stages).as(messages.toString()).isNotEmpty().isSorted();
  }

  /**
   * {@code subscriptions/listen} with the tasks extension, as raw HTTP: the acknowledgement honors
   * only the caller's task ids, each change of the task is a {@code notifications/tasks} with the
   * full task (progress in its status message, the result once completed), every message carries
   * the subscription id, and the stream ends with the listen result once the task is final.
   */
  @Test
  void aListenStreamCarriesTheTaskUntilItEndsAndThenClosesGracefully() throws Exception {
    ObjectNode call = Json.MAPPER.createObjectNode().put("name", "pipeline");
    call.putObject("arguments").put("text", "abc");
    String id = stateless("tools/call", call, "pipeline").at("/result/taskId").asText();
    ObjectNode listen = Json.MAPPER.createObjectNode();
    listen.putObject("notifications").putArray("taskIds").add(id).add("no-such-task");
    RawStream stream = RawStream.post(statelessBody("subscriptions/listen", listen, "sub-1"));
    JsonNode ack = data(stream.nextEvent());
    assertThat(ack.get("method").asText()).isEqualTo("notifications/subscriptions/acknowledged");
    assertThat(ack.at("/params/notifications/taskIds"))
        .extracting(JsonNode::asText)
        .containsExactly(id);
    assertThat(ack.at("/params/_meta/io.modelcontextprotocol~1subscriptionId").asText())
        .isEqualTo("sub-1");
    runPipeline(id, false);

    List<String> messages = new ArrayList<>();
    JsonNode last;
    while (true) {
      last = data(stream.nextEvent());
      if (last.has("id")) {
        break;
      }
      assertThat(last.get("method").asText()).isEqualTo("notifications/tasks");
      assertThat(last.at("/params/_meta/io.modelcontextprotocol~1subscriptionId").asText())
          .isEqualTo("sub-1");
      assertThat(last.at("/params/taskId").asText()).isEqualTo(id);
      messages.add(
          last.at("/params/status").asText() + " " + last.at("/params/statusMessage").asText());
      if (last.at("/params/status").asText().equals("completed")) {
        assertThat(last.at("/params/result/structuredContent/result/text").asText())
            .isEqualTo("CBA");
      }
    }
    assertThat(messages).as(messages.toString()).hasSizeGreaterThanOrEqualTo(2);
    assertThat(messages).last().asString().startsWith("completed 100% done");
    assertThat(last.get("id").asText()).isEqualTo("sub-1");
    assertThat(last.at("/result/resultType").asText()).isEqualTo("complete");
    assertThat(last.at("/result/_meta/io.modelcontextprotocol~1subscriptionId").asText())
        .isEqualTo("sub-1");
    stream.close();
  }

  private static JsonNode data(List<String> event) throws Exception {
    return Json.MAPPER.readTree(field(event, "data: "));
  }

  /** One request of the 2026-07-28 revision declaring the tasks extension; its answer. */
  private static JsonNode stateless(String method, ObjectNode params, String name)
      throws Exception {
    HttpRequest.Builder req = statelessBody(method, params, name);
    HttpResponse<String> r = HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("Mcp-Session-Id")).isEmpty();
    return Json.MAPPER.readTree(r.body());
  }

  /**
   * A request of the 2026-07-28 revision declaring the tasks extension, its headers set; for {@code
   * subscriptions/listen} {@code name} is the request id.
   */
  private static HttpRequest.Builder statelessBody(String method, ObjectNode params, String name) {
    ObjectNode p = params.deepCopy();
    ObjectNode meta = p.putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", STATELESS);
    meta.putObject("io.modelcontextprotocol/clientInfo").put("name", "raw").put("version", "1");
    meta.putObject("io.modelcontextprotocol/clientCapabilities")
        .putObject("extensions")
        .putObject(TASKS_EXT);
    ObjectNode body = Json.MAPPER.createObjectNode().put("jsonrpc", "2.0");
    if (method.equals("subscriptions/listen")) {
      body.put("id", name);
    } else {
      body.put("id", 1);
    }
    body.put("method", method).set("params", p);
    HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(base + "/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", ACCEPT_BOTH)
            .header("MCP-Protocol-Version", STATELESS)
            .header("Mcp-Method", method)
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    if (name != null && !method.equals("subscriptions/listen")) {
      req.header("Mcp-Name", name);
    }
    return req;
  }

  @Test
  void aStreamIsPrimedAndRedeliversWhatAClientMissedAfterItReconnects() throws Exception {
    HttpResponse<String> init =
        post(
            null,
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");

    RawStream first = RawStream.open(session, null);
    List<String> priming = first.nextEvent();
    assertThat(priming).anyMatch(l -> l.startsWith("id: ")).contains("retry: 1000");
    JsonNode call =
        message(
            post(
                session,
                "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{"
                    + "\"name\":\"pipeline\",\"arguments\":{\"text\":\"abc\"},\"task\":{},"
                    + "\"_meta\":{\"progressToken\":\"p1\"}}}"));
    String id = call.at("/result/task/taskId").asText();
    assertThat(id).isNotBlank();
    report(id, "", "upper", "reverse,count", "processing");
    List<String> seen = first.nextEventWith("notifications/progress");
    String lastSeen = field(seen, "id: ");
    first.close();

    // while no stream is open: two more steps, each a progress notification kept for the client
    report(id, "upper", "reverse", "count", "processing");
    report(id, "upper,reverse", "count", "", "processing");
    RawStream resumed = RawStream.open(session, lastSeen);
    List<String> missed = resumed.nextEventWith("notifications/progress");
    assertThat(missed).noneMatch(l -> l.equals("retry: 1000"));
    long before = Long.parseLong(lastSeen.substring(lastSeen.lastIndexOf(':') + 1));
    String missedId = field(missed, "id: ");
    assertThat(Long.parseLong(missedId.substring(missedId.lastIndexOf(':') + 1)))
        .isEqualTo(before + 1);
    assertThat(field(missed, "data: ")).contains("\"p1\"");
    resumed.close();
  }

  /**
   * Runs one of the node client scripts against this gateway: each line it prints is one JSON
   * event, kept by its name; when the client has created its task, the pipeline's actors are run
   * for it (pausing first when asked). The script must exit 0 within a minute.
   */
  private Map<String, JsonNode> runClientScript(String script, String mode, boolean pause)
      throws Exception {
    Map<String, JsonNode> events = new LinkedHashMap<>();
    Process node =
        new ProcessBuilder("node", script, base, "-", mode)
            .directory(nodeDir.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        JsonNode e = Json.MAPPER.readTree(line);
        events.put(e.get("event").asText(), e);
        if (e.get("event").asText().equals("created")) {
          runPipeline(e.get("taskId").asText(), pause);
        }
      }
    }
    assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(node.exitValue()).as(events.toString()).isZero();
    return events;
  }

  /**
   * Reports the three actors' steps and the final result, as their sidecars would; with {@code
   * pause}, a pause after the first that only the MCP client's answer to the elicitation ends.
   */
  private static void runPipeline(String id, boolean pause) throws Exception {
    String[][] steps = {
      {"", "upper", "reverse,count"}, {"upper", "reverse", "count"}, {"upper,reverse", "count", ""}
    };
    for (String[] s : steps) {
      for (String state : List.of("received", "processing", "completed")) {
        report(id, s[0], s[1], s[2], state);
      }
      if (pause && s[1].equals("upper")) {
        // x-pause parks the task until the client's input resumes it
        TaskHttp.post(
            base + "/mesh/" + id + "/final",
            "{\"id\":\"" + id + "\",\"status\":\"paused\",\"current_actor_name\":\"x-pause\"}");
        // running again once the client answered; a fast client may answer between two reads
        // here, so "paused" may never be seen: a task already resumed counts as having paused
        TaskHttp.await(
            base + "/tasks/" + id,
            t ->
                t.path("status").asText().equals("paused")
                    || (t.path("status").asText().equals("running")
                        && t.path("message").asText().startsWith("Task resumed")),
            Duration.ofSeconds(60));
        TaskHttp.await(
            base + "/tasks/" + id,
            t -> t.path("status").asText().equals("running"),
            Duration.ofSeconds(60));
      }
    }
    HttpResponse<String> done =
        TaskHttp.post(
            base + "/mesh/" + id + "/final",
            "{\"id\":\"" + id + "\",\"status\":\"succeeded\",\"result\":{\"text\":\"CBA\"}}");
    assertThat(done.statusCode()).isEqualTo(200);
  }

  private static void report(String id, String prev, String curr, String next, String state)
      throws Exception {
    HttpResponse<String> r =
        TaskHttp.post(
            base + "/mesh/" + id + "/progress", TaskHttp.progress(prev, curr, next, state));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
  }

  private static HttpResponse<String> post(String session, String body) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            TaskHttp.mcpPost(base, session, body).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isBetween(200, 202);
    return r;
  }

  private static JsonNode message(HttpResponse<String> r) throws Exception {
    return Json.MAPPER.readTree(r.body());
  }

  private static String field(List<String> event, String prefix) {
    return event.stream()
        .filter(l -> l.startsWith(prefix))
        .map(l -> l.substring(prefix.length()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no '" + prefix + "' in " + event));
  }

  /** A GET stream of a session, read line by line on its own thread. */
  private static final class RawStream implements AutoCloseable {
    private final InputStream body;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private RawStream(InputStream body) {
      this.body = body;
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
                  for (String l = in.readLine(); l != null; l = in.readLine()) {
                    lines.add(l);
                  }
                } catch (Exception e) {
                  // closed by the test
                }
              },
              "mcp-stream-reader");
      reader.setDaemon(true);
      reader.start();
    }

    static RawStream open(String session, String lastEventId) throws Exception {
      HttpRequest.Builder req =
          HttpRequest.newBuilder(URI.create(base + "/mcp"))
              .header("Accept", "text/event-stream")
              .header("Mcp-Session-Id", session)
              .GET();
      if (lastEventId != null) {
        req.header("Last-Event-ID", lastEventId);
      }
      HttpResponse<InputStream> r =
          HTTP.send(req.build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
      return new RawStream(r.body());
    }

    /** A 2026-07-28 request answered with a stream (subscriptions/listen). */
    static RawStream post(HttpRequest.Builder request) throws Exception {
      HttpResponse<InputStream> r =
          HTTP.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
      return new RawStream(r.body());
    }

    /** The lines of the next event (comments skipped). */
    List<String> nextEvent() throws InterruptedException {
      List<String> event = new ArrayList<>();
      while (true) {
        String l = lines.poll(30, TimeUnit.SECONDS);
        assertThat(l).as("an event within 30 s").isNotNull();
        if (l.isEmpty()) {
          if (!event.isEmpty()) {
            return event;
          }
        } else if (!l.startsWith(":")) {
          event.add(l);
        }
      }
    }

    List<String> nextEventWith(String text) throws InterruptedException {
      Duration limit = Duration.ofSeconds(30);
      long deadline = System.nanoTime() + limit.toNanos();
      while (System.nanoTime() < deadline) {
        List<String> e = nextEvent();
        if (e.stream().anyMatch(l -> l.contains(text))) {
          return e;
        }
      }
      throw new AssertionError("no event with " + text);
    }

    @Override
    public void close() throws Exception {
      body.close();
    }
  }
}

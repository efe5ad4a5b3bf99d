package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The A2A TCK pipeline ({@code examples/a2a-tck}) on the dev stack with a real broker and Python
 * runtime, for a few of the TCK's messageId prefixes over A2A 1.0 JSON-RPC and one conversation
 * turn over 0.3: what the kits need from it keeps working (the kits themselves are run by hand,
 * examples/a2a-tck/README.md).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PipelineA2aTckIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() {
    stack = TestStacks.onSharedBroker(TestStacks.root().resolve("examples/a2a-tck"), data, "tck");
    base = stack.gatewayUrl();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void prefixesShapeTheTaskTheTckExpects() throws Exception {
    JsonNode completed = send(message("tck-complete-task"), null).at("/result/task");
    assertThat(completed.at("/status/state").asText()).isEqualTo("TASK_STATE_COMPLETED");
    assertThat(completed.at("/status/message/parts/0/text").asText()).isEqualTo("Hello from TCK");

    JsonNode file = send(message("tck-artifact-file"), null).at("/result/task/artifacts/0/parts/0");
    assertThat(file.path("raw").asText()).isEqualTo("dGNr");
    assertThat(file.path("filename").asText()).isEqualTo("output.txt");
    assertThat(file.path("mediaType").asText()).isEqualTo("text/plain");

    JsonNode reply = send(message("tck-message-response"), null).get("result");
    assertThat(reply.has("task")).isFalse();
    assertThat(reply.at("/message/role").asText()).isEqualTo("ROLE_AGENT");
    assertThat(reply.at("/message/parts/0/text").asText()).isEqualTo("Direct message response");
  }

  @Test
  void anInputRequiredTaskTakesAFollowUpByItsPrefix() throws Exception {
    JsonNode asked = send(message("tck-input-required"), null).at("/result/task");
    assertThat(asked.at("/status/state").asText()).isEqualTo("TASK_STATE_INPUT_REQUIRED");
    String id = asked.get("id").asText();

    JsonNode done = send(message("tck-complete-task"), id).at("/result/task");
    assertThat(done.get("id").asText()).isEqualTo(id);
    assertThat(done.at("/status/state").asText()).isEqualTo("TASK_STATE_COMPLETED");
    assertThat(done.get("contextId").asText()).isEqualTo(asked.get("contextId").asText());
  }

  @Test
  void anyOtherMessageIdHoldsAConversationOverZeroPointThree() throws Exception {
    JsonNode first = post("/a2a/", conversationTurn(null), null).get("result");
    assertThat(first.at("/status/state").asText()).isEqualTo("input-required");
    String id = first.get("id").asText();
    // each answer is followed by another wait for input: the task never ends by itself
    JsonNode second = post("/a2a/", conversationTurn(id), null).get("result");
    assertThat(second.get("id").asText()).isEqualTo(id);
    assertThat(second.at("/status/state").asText()).isEqualTo("input-required");
    assertThat(second.get("history").size()).isGreaterThan(first.get("history").size());
  }

  private static String conversationTurn(String taskId) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/send\",\"params\":{\"message\":"
        + "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\""
        + UUID.randomUUID()
        + "\","
        + (taskId == null ? "" : "\"taskId\":\"" + taskId + "\",")
        + "\"parts\":[{\"kind\":\"text\",\"text\":\"hello\"}]}}}";
  }

  private static ObjectNode message(String prefix) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("role", "ROLE_USER");
    m.put("messageId", prefix + "-" + UUID.randomUUID());
    m.putArray("parts").addObject().put("text", "from PipelineA2aTckIT");
    return m;
  }

  /** A blocking SendMessage over 1.0 JSON-RPC; {@code taskId} continues a task. */
  private static JsonNode send(ObjectNode message, String taskId) throws Exception {
    if (taskId != null) {
      message.put("taskId", taskId);
    }
    ObjectNode req = Json.MAPPER.createObjectNode();
    req.put("jsonrpc", "2.0");
    req.put("id", 1);
    req.put("method", "SendMessage");
    req.putObject("params").set("message", message);
    JsonNode answer = post("/a2a/v1", Json.write(req), "1.0");
    assertThat(answer.has("error")).as(answer.toString()).isFalse();
    return answer;
  }

  private static JsonNode post(String path, String body, String a2aVersion) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(90))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (a2aVersion != null) {
      b.header("A2A-Version", a2aVersion);
    }
    HttpResponse<String> r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }
}

package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.a2a.model.A2aMessage;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flow result that shapes its A2A answer ({@code result.a2a}): artifacts, final status text, a
 * direct reply, the rejected state, artifact chunks from FLY; and the 1.0 subscribe stream that
 * goes on through input-required.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ShapedResultTest {
  private static final String SHAPED =
      """
      {"a2a": {"status": "Hello from TCK",
               "artifacts": [{"name": "output", "parts": [
                 {"kind": "text", "text": "t"},
                 {"kind": "file", "file": {"bytes": "dGNr", "name": "output.txt", "mimeType": "text/plain"}},
                 {"kind": "nonsense"}]}]}}
      """;

  private static JsonNode json(String s) {
    return Json.read(s, JsonNode.class);
  }

  private static TaskUpdate update(long seq, TaskStatus status, JsonNode result) {
    return TaskUpdate.of("t", seq, status, status.wire(), "2026-01-01T00:00:00Z")
        .withResult(result);
  }

  private static TaskState completed(JsonNode result) {
    TaskUpdate first = update(1, TaskStatus.PENDING, null);
    TaskUpdate done = update(2, TaskStatus.SUCCEEDED, result);
    return TaskState.created(
            "t",
            new TaskEvent.Created(
                "tck", new Route(List.of(), "a", List.of()), json("{}"), null, "ctx", null, null),
            first,
            "e1")
        .withHistory(List.of(first, done))
        .withUpdate(done);
  }

  @Test
  void aShapingResultNamesItsArtifactsAndFinalStatusText() {
    JsonNode task = Json.tree(A2aTasks.task(completed(json(SHAPED)), 0));
    assertThat(task.at("/status/state").asText()).isEqualTo("completed");
    assertThat(task.at("/status/message/parts/0/text").asText()).isEqualTo("Hello from TCK");
    assertThat(task.get("artifacts")).hasSize(1);
    JsonNode parts = task.at("/artifacts/0/parts");
    assertThat(parts).as("the unknown part kind is left out").hasSize(2);
    assertThat(parts.get(1).at("/file/bytes").asText()).isEqualTo("dGNr");
    assertThat(A2aTasks.reply(completed(json(SHAPED)))).isNull();
  }

  @Test
  void replyAndRejectedAndOrdinaryResults() {
    A2aMessage reply =
        A2aTasks.reply(
            completed(json("{\"a2a\":{\"reply\":[{\"kind\":\"text\",\"text\":\"hi\"}]}}")));
    assertThat(reply.role()).isEqualTo("agent");
    assertThat(reply.contextId()).isEqualTo("ctx");
    assertThat(Json.tree(reply).at("/parts/0/text").asText()).isEqualTo("hi");

    JsonNode rejected =
        Json.tree(A2aTasks.task(completed(json("{\"a2a\":{\"state\":\"rejected\"}}")), 0));
    assertThat(rejected.at("/status/state").asText()).isEqualTo("rejected");
    assertThat(rejected.has("artifacts"))
        .as("a shaping result without artifacts has none")
        .isFalse();

    for (String ordinary : List.of("{\"a2a\":\"not an object\"}", "{\"a2a\":{}}", "{\"x\":1}")) {
      JsonNode task = Json.tree(A2aTasks.task(completed(json(ordinary)), 0));
      assertThat(task.at("/artifacts/0/artifactId").asText()).as(ordinary).isEqualTo("result");
      assertThat(task.at("/status/state").asText()).isEqualTo("completed");
    }
  }

  @Test
  void streamsSendNamedChunksAndTheResultsArtifactsBeforeTheFinalStatus() {
    StreamMapper m = new StreamMapper("t", "c", 0, A2aState.SUBMITTED);
    JsonNode chunk =
        Json.tree(
            m.onFly(
                    json(
                        "{\"a2a\":{\"artifact\":{\"artifactId\":\"x\",\"parts\":[{\"kind\":\"text\",\"text\":\"c1\"}]},"
                            + "\"append\":true,\"lastChunk\":true}}"))
                .get(0));
    assertThat(chunk.at("/artifact/artifactId").asText()).isEqualTo("x");
    assertThat(chunk.get("append").asBoolean()).isTrue();
    assertThat(chunk.get("lastChunk").asBoolean()).isTrue();
    List<JsonNode> end =
        m.onUpdate(update(2, TaskStatus.SUCCEEDED, json(SHAPED))).stream().map(Json::tree).toList();
    assertThat(end)
        .extracting(e -> e.get("kind").asText())
        .containsExactly("artifact-update", "status-update");
    assertThat(end.get(0).at("/artifact/name").asText()).isEqualTo("output");
    assertThat(end.get(1).at("/status/message/parts/0/text").asText()).isEqualTo("Hello from TCK");
  }

  @Test
  void aSubscriptionUntilTerminalGoesOnThroughInputRequired() {
    StreamMapper m = new StreamMapper("t", "c", 1, A2aState.WORKING, true);
    JsonNode paused = Json.tree(m.onUpdate(update(2, TaskStatus.PAUSED, null)).get(0));
    assertThat(paused.at("/status/state").asText()).isEqualTo("input-required");
    assertThat(paused.get("final").asBoolean()).isFalse();
    assertThat(m.done()).isFalse();
    m.onUpdate(update(3, TaskStatus.RUNNING, null));
    m.onUpdate(update(4, TaskStatus.SUCCEEDED, null));
    assertThat(m.done()).isTrue();
  }
}

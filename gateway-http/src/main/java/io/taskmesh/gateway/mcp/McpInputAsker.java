package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.mcp.wire.Elicitation;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks a session's client for a paused task's input (MCP 2025-11-25, "Input Required Status"): what
 * the pause asks ({@link PausedInput}), once per pause, each request tied to the task by its
 * related-task metadata.
 */
final class McpInputAsker {
  private static final Logger LOG = LoggerFactory.getLogger(McpInputAsker.class);

  private final String taskId;
  private final McpSession session;
  private final BiConsumer<String, JsonNode> resume;
  private boolean asking;
  private String askedAt;

  McpInputAsker(String taskId, McpSession session, BiConsumer<String, JsonNode> resume) {
    this.taskId = taskId;
    this.session = session;
    this.resume = resume;
  }

  /** Whether this client can be asked what the paused task asks (its declared capabilities). */
  boolean canAsk(TaskState s) {
    return PausedInput.askable(s, session.capabilities());
  }

  /**
   * Asks once per pause: the handler's named requests, each as it named it, or one elicitation of
   * its question. Every answer in, the task resumes with the input they make ({@link PausedInput});
   * a question declined or cancelled leaves it paused.
   */
  synchronized void onState(TaskState s) {
    if (s.status() != TaskStatus.PAUSED
        || asking
        || Objects.equals(askedAt, s.updatedAt())
        || !canAsk(s)) {
      return;
    }
    asking = true;
    askedAt = s.updatedAt();
    Map<String, JsonNode> requests = PausedInput.requests(s, session.capabilities());
    ObjectNode responses = Json.MAPPER.createObjectNode();
    List<CompletableFuture<?>> asked = new ArrayList<>();
    for (Map.Entry<String, JsonNode> request : requests.entrySet()) {
      ObjectNode params =
          request.getValue().path("params").isObject()
              ? ((ObjectNode) request.getValue().get("params")).deepCopy()
              : Json.MAPPER.createObjectNode();
      params.set("_meta", Json.MAPPER.valueToTree(McpTaskViews.related(taskId)));
      asked.add(
          session
              .ask(request.getValue().path("method").asText(), params)
              .thenAccept(
                  answer -> {
                    // an error answer leaves its key unanswered: the task stays paused
                    if (answer.path("result").isObject()) {
                      synchronized (responses) {
                        responses.set(request.getKey(), answer.get("result"));
                      }
                    }
                  }));
    }
    CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
        .whenComplete((done, e) -> answered(s, e == null ? responses : null));
  }

  private synchronized void answered(TaskState s, JsonNode responses) {
    asking = false;
    Optional<JsonNode> input = PausedInput.input(s, responses, session.capabilities());
    if (input.isEmpty()) {
      return;
    }
    try {
      resume.accept(taskId, input.get());
    } catch (RuntimeException e) {
      LOG.warn("task {} could not be resumed: {}", taskId, e.getMessage());
    }
  }

  /**
   * The {@code elicitation/create} params asking for a paused task's input: the same question in
   * both eras (2026-07-28 puts it in the task's {@code inputRequests}).
   */
  static Elicitation elicitation(String taskId, TaskState s) {
    // the handler's own question when it asked one: it is what the person must answer
    String message =
        s.question() != null
            ? s.question()
            : "Task "
                + taskId
                + (s.currentActorName() == null ? "" : " (" + s.currentActorName() + ")")
                + " needs input"
                + (s.message() == null ? "" : ": " + s.message());
    return Elicitation.ofText(message, McpTaskViews.related(taskId));
  }
}

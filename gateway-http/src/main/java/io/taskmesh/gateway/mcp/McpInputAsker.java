package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import java.util.Objects;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the client for a paused task's input (MCP 2025-11-25 tasks, "Input Required Status"): one
 * {@code elicitation/create} per pause, tied to the task by its related-task metadata; an accepted
 * answer's content resumes the task, a declined or cancelled one leaves it paused.
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

  synchronized void onState(TaskState s) {
    if (s.status() != TaskStatus.PAUSED || asking || Objects.equals(askedAt, s.updatedAt())) {
      return;
    }
    asking = true;
    askedAt = s.updatedAt();
    session
        .ask("elicitation/create", elicitation(taskId, s))
        .whenComplete((answer, e) -> answered(answer));
  }

  private synchronized void answered(JsonNode answer) {
    asking = false;
    if (answer == null || !"accept".equals(answer.at("/result/action").asText())) {
      return;
    }
    JsonNode content = answer.at("/result/content");
    try {
      resume.accept(taskId, content.isObject() ? content : Json.MAPPER.createObjectNode());
    } catch (RuntimeException e) {
      LOG.warn("task {} could not be resumed: {}", taskId, e.getMessage());
    }
  }

  /**
   * The {@code elicitation/create} params asking for a paused task's input: the same question in
   * both eras (2026-07-28 puts it in the task's {@code inputRequests}).
   */
  static ObjectNode elicitation(String taskId, TaskState s) {
    ObjectNode params = Json.MAPPER.createObjectNode();
    // the handler's own question when it asked one: it is what the person must answer
    params.put(
        "message",
        s.question() != null
            ? s.question()
            : "Task "
                + taskId
                + (s.currentActorName() == null ? "" : " (" + s.currentActorName() + ")")
                + " needs input"
                + (s.message() == null ? "" : ": " + s.message()));
    ObjectNode schema = params.putObject("requestedSchema");
    schema.put("type", "object");
    schema
        .putObject("properties")
        .putObject("text")
        .put("type", "string")
        .put("description", "the input the task continues with");
    schema.putArray("required").add("text");
    params.putObject("_meta").set(McpTaskViews.RELATED_TASK, McpTaskViews.related(taskId));
    return params;
  }
}

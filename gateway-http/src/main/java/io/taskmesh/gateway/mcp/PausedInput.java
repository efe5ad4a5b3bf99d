package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.mcp.wire.Elicitation.InputRequest;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What a paused task asks its MCP client, and the input the client's answers resume it with.
 *
 * <ul>
 *   <li>A handler that named its requests ({@code x-svc-input-requests}) is asked exactly those,
 *       under its keys, and resumes with every answer whole under the same keys ({@code
 *       payload.input = {"<key>": {"action": "accept", "content": {...}}, ...}} for an elicitation,
 *       the sampling or roots result for the others), once every key is answered; what it makes of
 *       a declined elicitation is the handler's call.
 *   <li>A handler that only asked a question is asked one elicitation of it, keyed per pause
 *       ({@code taskmesh-input-<seq>}, so an answer to an earlier pause never resumes a later one),
 *       and resumes with an accepted answer's content; a declined one leaves it paused.
 * </ul>
 */
final class PausedInput {
  /** The capability a client declares to be asked each method. */
  private static final Map<String, String> CAPABILITY =
      Map.of(
          "elicitation/create", "elicitation",
          "sampling/createMessage", "sampling",
          "roots/list", "roots");

  private PausedInput() {}

  /** Whether the handler named its requests. */
  static boolean named(TaskState s) {
    return s.inputRequests() != null
        && s.inputRequests().isObject()
        && !s.inputRequests().isEmpty();
  }

  /** The task's input requests, keyed: {@code {"<key>": {"method": ..., "params": {...}}}}. */
  static Map<String, JsonNode> requests(TaskState s) {
    return requests(s, null);
  }

  /**
   * The requests a client that declared {@code capabilities} can be asked (null: all of them): a
   * server asks a client only what it declared it can answer, and a handler reads a key it asked
   * but did not get as unanswered. A handler's request is passed on as it wrote it.
   */
  static Map<String, JsonNode> requests(TaskState s, JsonNode capabilities) {
    Map<String, JsonNode> askable = new LinkedHashMap<>();
    if (named(s)) {
      s.inputRequests()
          .properties()
          .forEach(
              r -> {
                if (capabilities == null || declares(capabilities, r.getValue())) {
                  askable.put(r.getKey(), r.getValue());
                }
              });
      return askable;
    }
    // the one question, as an input request (the request names the task, so no _meta)
    JsonNode request =
        Json.MAPPER.valueToTree(
            new InputRequest(
                "elicitation/create", McpInputAsker.elicitation(s.id(), s).withoutMeta()));
    if (capabilities == null || declares(capabilities, request)) {
      askable.put(McpTaskExtension.inputKey(s), request);
    }
    return askable;
  }

  /**
   * The requests (of those a client that declared {@code capabilities} is asked) that {@code
   * responses} leaves unanswered (all of them when it is null).
   */
  static Map<String, JsonNode> unanswered(TaskState s, JsonNode responses, JsonNode capabilities) {
    Map<String, JsonNode> left = requests(s, capabilities);
    if (responses != null && responses.isObject()) {
      responses.fieldNames().forEachRemaining(left::remove);
    }
    return left;
  }

  /**
   * The input that resumes the task: empty while a request is unanswered, or when the one question
   * was not accepted. Answers to keys the task did not ask are ignored.
   */
  static Optional<JsonNode> input(TaskState s, JsonNode responses, JsonNode capabilities) {
    if (responses == null
        || !responses.isObject()
        || requests(s, capabilities).isEmpty()
        || !unanswered(s, responses, capabilities).isEmpty()) {
      return Optional.empty();
    }
    if (!named(s)) {
      JsonNode answer = responses.get(McpTaskExtension.inputKey(s));
      if (!"accept".equals(answer.path("action").asText())) {
        return Optional.empty();
      }
      JsonNode content = answer.get("content");
      return Optional.of(
          content != null && content.isObject() ? content : Json.MAPPER.createObjectNode());
    }
    // each answer whole, under the key it answers
    Map<String, JsonNode> input = new LinkedHashMap<>();
    requests(s, capabilities).keySet().forEach(key -> input.put(key, responses.get(key)));
    return Optional.of(Json.MAPPER.valueToTree(input));
  }

  /**
   * Whether a client that declared {@code capabilities} can be asked anything the task asks (an
   * elicitation needs {@code elicitation}, sampling {@code sampling}, roots {@code roots}).
   */
  static boolean askable(TaskState s, JsonNode capabilities) {
    return capabilities != null && !requests(s, capabilities).isEmpty();
  }

  private static boolean declares(JsonNode capabilities, JsonNode request) {
    String needs = CAPABILITY.get(request.path("method").asText());
    return needs != null && capabilities.has(needs);
  }
}

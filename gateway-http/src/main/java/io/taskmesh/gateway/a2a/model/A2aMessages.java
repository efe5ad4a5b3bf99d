package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Validation of {@code message/send} / {@code message/stream} params and the message-to-payload
 * rule. Pure: no I/O.
 *
 * <p>Payload rule: the {@code data} parts become the payload; one data part is its object, several
 * are merged key by key in order (a later part's key wins). Text parts are joined with {@code "\n"}
 * into {@code {"text": ...}}; with data parts as well, the joined text is set as the payload's
 * {@code text} field (it wins over a data part's {@code text}). File parts are refused with
 * ContentTypeNotSupported (-32005): flows take JSON; only a flow with {@code a2a: {native: true}}
 * gets them, as {@code payload.a2a.files}.
 *
 * <p>Skill choice: {@code params.metadata.skill} or {@code message.metadata.skill} (also {@code
 * skillId}) names the flow; a message that names none goes to the default skill, or to the only
 * skill when there is one ({@link #chooseSkill}).
 */
public final class A2aMessages {
  private static final Set<String> SKILL_KEYS = Set.of("skill", "skillId");

  private A2aMessages() {}

  /** What a valid send request carries. */
  public record Send(
      JsonNode message,
      ObjectNode payload,
      String taskId,
      String contextId,
      String skill,
      Boolean blocking,
      JsonNode pushConfig,
      Integer historyLength,
      List<JsonNode> files) {

    /**
     * A file part's refusal for a flow that takes JSON only (a flow with {@code a2a: {native:
     * true}} gets the files in {@code payload.a2a.files} instead).
     */
    public void refuseFiles() {
      if (!files.isEmpty()) {
        throw new A2aException(
            A2aException.CONTENT_TYPE_NOT_SUPPORTED,
            "Content type not supported: file parts are not accepted by this skill, send text or"
                + " data parts");
      }
    }
  }

  public static Send parseSend(ObjectNode params) {
    JsonNode message = params.get("message");
    if (message == null || !message.isObject()) {
      throw A2aException.params("Invalid params: 'message' (an object) is required");
    }
    JsonNode kind = message.get("kind");
    if (kind != null && !"message".equals(kind.asText(null))) {
      throw A2aException.params("Invalid params: 'message.kind' must be \"message\"");
    }
    JsonNode role = message.get("role");
    if (role == null || !role.isTextual()) {
      throw A2aException.params("Invalid params: 'message.role' is required (\"user\")");
    }
    if (!"user".equals(role.asText())) {
      throw A2aException.params(
          "Invalid params: 'message.role' must be \"user\", not \"" + role.asText() + "\"");
    }
    JsonNode messageId = message.get("messageId");
    if (messageId == null || !messageId.isTextual() || messageId.asText().isBlank()) {
      throw A2aException.params("Invalid params: 'message.messageId' (a string) is required");
    }
    String taskId = optionalString(message, "taskId", "message.taskId");
    String contextId = optionalString(message, "contextId", "message.contextId");
    if (contextId != null && contextId.isBlank()) {
      throw A2aException.params("Invalid params: 'message.contextId' must not be blank");
    }
    List<JsonNode> files = new ArrayList<>();
    ObjectNode payload = payload(message.get("parts"), files);
    String skill = skill(params.get("metadata"), "metadata");
    String messageSkill = skill(message.get("metadata"), "message.metadata");
    Boolean blocking = null;
    JsonNode pushConfig = null;
    Integer historyLength = null;
    JsonNode configuration = params.get("configuration");
    if (configuration != null && !configuration.isNull()) {
      if (!configuration.isObject()) {
        throw A2aException.params("Invalid params: 'configuration' must be an object");
      }
      JsonNode b = configuration.get("blocking");
      if (b != null && !b.isNull()) {
        if (!b.isBoolean()) {
          throw A2aException.params("Invalid params: 'configuration.blocking' must be a boolean");
        }
        blocking = b.asBoolean();
      }
      historyLength =
          historyLength(configuration.get("historyLength"), "configuration.historyLength");
      JsonNode modes = configuration.get("acceptedOutputModes");
      if (modes != null && !modes.isNull() && !modes.isArray()) {
        throw A2aException.params(
            "Invalid params: 'configuration.acceptedOutputModes' must be a list");
      }
      JsonNode push = configuration.get("pushNotificationConfig");
      if (push != null && !push.isNull()) {
        pushConfig = push;
      }
    }
    return new Send(
        message,
        payload,
        taskId,
        contextId,
        skill != null ? skill : messageSkill,
        blocking,
        pushConfig,
        historyLength,
        files);
  }

  /** The payload of a message's parts (rule in the class comment). */
  public static ObjectNode payload(JsonNode parts) {
    return payload(parts, null);
  }

  /**
   * The payload of a message's parts; with {@code files} not null, each file part's file object is
   * added to it instead of being refused.
   */
  public static ObjectNode payload(JsonNode parts, List<JsonNode> files) {
    if (parts == null || !parts.isArray()) {
      throw A2aException.params("Invalid params: 'message.parts' (a list) is required");
    }
    if (parts.isEmpty()) {
      throw A2aException.params("Invalid params: 'message.parts' must not be empty");
    }
    ObjectNode payload = Json.MAPPER.createObjectNode();
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < parts.size(); i++) {
      JsonNode part = parts.get(i);
      String where = "message.parts[" + i + "]";
      if (!part.isObject()) {
        throw A2aException.params("Invalid params: '" + where + "' must be an object");
      }
      JsonNode kind = part.get("kind");
      String k = kind == null || !kind.isTextual() ? null : kind.asText();
      if (k == null) {
        throw A2aException.params(
            "Invalid params: '" + where + ".kind' is required (text, data or file)");
      }
      switch (k) {
        case "text" -> {
          JsonNode text = part.get("text");
          if (text == null || !text.isTextual()) {
            throw A2aException.params("Invalid params: '" + where + ".text' must be a string");
          }
          texts.add(text.asText());
        }
        case "data" -> {
          JsonNode data = part.get("data");
          if (data == null || !data.isObject()) {
            throw A2aException.params("Invalid params: '" + where + ".data' must be an object");
          }
          Iterator<Map.Entry<String, JsonNode>> fields = data.properties().iterator();
          while (fields.hasNext()) {
            Map.Entry<String, JsonNode> f = fields.next();
            payload.set(f.getKey(), f.getValue());
          }
        }
        case "file" -> {
          JsonNode file = part.get("file");
          if (files == null) {
            throw new A2aException(
                A2aException.CONTENT_TYPE_NOT_SUPPORTED,
                "Content type not supported: file parts are not accepted, send text or data parts ('"
                    + where
                    + "')");
          }
          if (file == null || !file.isObject()) {
            throw A2aException.params("Invalid params: '" + where + ".file' must be an object");
          }
          files.add(file);
        }
        default ->
            throw A2aException.params(
                "Invalid params: '"
                    + where
                    + ".kind' must be text, data or file, not \""
                    + k
                    + "\"");
      }
    }
    if (!texts.isEmpty()) {
      payload.put("text", String.join("\n", texts));
    }
    return payload;
  }

  /**
   * Picks the flow (the rule the card states in each skill's description, {@code AgentCard}): the
   * named skill; else the default skill ({@code a2a: {default: true}}); else the only skill.
   */
  public static FlowConfig chooseSkill(String requested, Map<String, FlowConfig> skills) {
    if (requested != null) {
      FlowConfig flow = skills.get(requested);
      if (flow == null) {
        throw A2aException.params(
            "Invalid params: 'metadata.skill' names an unknown skill \""
                + requested
                + "\" (skills: "
                + skills.keySet()
                + ")");
      }
      return flow;
    }
    for (FlowConfig flow : skills.values()) {
      if (flow.isDefaultA2aSkill()) {
        return flow;
      }
    }
    if (skills.size() == 1) {
      return skills.values().iterator().next();
    }
    if (skills.isEmpty()) {
      throw new A2aException(
          A2aException.UNSUPPORTED_OPERATION, "This agent has no skills configured");
    }
    throw A2aException.params(
        "Invalid params: this agent has several skills "
            + skills.keySet()
            + " and no default: name one in 'metadata.skill', or mark one flow's skill as the default in the flow"
            + " config ('a2a: {default: true}')");
  }

  /** {@code historyLength}: absent, or an integer >= 0. */
  public static Integer historyLength(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw A2aException.params("Invalid params: '" + where + "' must be an integer");
    }
    if (node.asInt() < 0) {
      throw A2aException.params("Invalid params: '" + where + "' must not be negative");
    }
    return node.asInt();
  }

  /** A required non-blank string field of params. */
  public static String requiredString(JsonNode params, String field) {
    JsonNode v = params.get(field);
    if (v == null || v.isNull()) {
      throw A2aException.params("Invalid params: '" + field + "' is required");
    }
    if (!v.isTextual() || v.asText().isBlank()) {
      throw A2aException.params("Invalid params: '" + field + "' must be a non-empty string");
    }
    return v.asText();
  }

  public static String optionalString(JsonNode node, String field, String where) {
    JsonNode v = node.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw A2aException.params("Invalid params: '" + where + "' must be a string");
    }
    return v.asText();
  }

  private static String skill(JsonNode metadata, String where) {
    if (metadata == null || metadata.isNull()) {
      return null;
    }
    if (!metadata.isObject()) {
      throw A2aException.params("Invalid params: '" + where + "' must be an object");
    }
    for (String key : SKILL_KEYS) {
      String v = optionalString(metadata, key, where + "." + key);
      if (v != null) {
        return v;
      }
    }
    return null;
  }
}

package io.taskmesh.gateway.a2a.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.schemas.Json;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The A2A 1.0 objects (ProtoJSON of {@code lf.a2a.v1}) beside the 0.3 ones the method classes read
 * and write. In: a 1.0 request's params become the 0.3 params of the same operation. Out: a 0.3
 * result becomes its 1.0 form: no {@code kind} discriminator, {@code TASK_STATE_*} and {@code
 * ROLE_*} enum names, parts as a {@code text}/{@code data}/{@code url}/{@code raw} member, stream
 * events wrapped as {@code task}/{@code statusUpdate}/{@code artifactUpdate}, push configs flat
 * ({@code TaskPushNotificationConfig}). Pure: no I/O.
 */
final class V1Objects {
  private static final String STATE_PREFIX = "TASK_STATE_";

  private V1Objects() {}

  // ---- in: 1.0 params -> 0.3 params ----

  /** {@code SendMessageRequest} -> 0.3 {@code MessageSendParams}. */
  static ObjectNode sendParams(ObjectNode params) {
    ObjectNode out = params.deepCopy();
    JsonNode message = out.get("message");
    if (message instanceof ObjectNode m) {
      out.set("message", messageIn(m));
    }
    JsonNode configuration = out.get("configuration");
    if (configuration instanceof ObjectNode c) {
      JsonNode immediately = c.remove("returnImmediately");
      if (immediately != null && !immediately.isNull()) {
        if (!immediately.isBoolean()) {
          throw invalid("'configuration.returnImmediately' must be a boolean");
        }
        c.put("blocking", !immediately.asBoolean());
      }
      JsonNode push = c.remove("taskPushNotificationConfig");
      if (push != null && !push.isNull()) {
        c.set("pushNotificationConfig", push.isObject() ? pushConfigIn((ObjectNode) push) : push);
      }
    }
    return out;
  }

  private static ObjectNode messageIn(ObjectNode message) {
    dropEmpty(message, "taskId", "contextId");
    JsonNode role = message.get("role");
    if (role != null && role.isTextual()) {
      switch (role.asText()) {
        case "ROLE_USER" -> message.put("role", "user");
        case "ROLE_AGENT" -> message.put("role", "agent");
        default ->
            throw invalid("'message.role' must be \"ROLE_USER\", not \"" + role.asText() + "\"");
      }
    } else if (role != null && !role.isNull()) {
      throw invalid("'message.role' must be \"ROLE_USER\"");
    }
    JsonNode parts = message.get("parts");
    if (parts instanceof ArrayNode list) {
      for (int i = 0; i < list.size(); i++) {
        if (list.get(i) instanceof ObjectNode part) {
          list.set(i, partIn(part, "message.parts[" + i + "]"));
        }
      }
    }
    return message;
  }

  /** A 1.0 part has one of text, raw, url, data; the 0.3 part names its kind. */
  private static ObjectNode partIn(ObjectNode part, String where) {
    ObjectNode out = part.deepCopy();
    if (has(part, "text")) {
      out.put("kind", "text");
    } else if (has(part, "data")) {
      out.put("kind", "data");
    } else if (has(part, "raw") || has(part, "url")) {
      // the 0.3 file part: {kind: file, file: {bytes | uri, name, mimeType}}
      ObjectNode file = Json.MAPPER.createObjectNode();
      copyAs(part, file, "raw", "bytes");
      copyAs(part, file, "url", "uri");
      copyAs(part, file, "filename", "name");
      copyAs(part, file, "mediaType", "mimeType");
      out = Json.MAPPER.createObjectNode();
      out.put("kind", "file");
      out.set("file", file);
    } else {
      throw invalid("'" + where + "' must have one of 'text', 'raw', 'url' or 'data'");
    }
    return out;
  }

  /** A flat 1.0 push config -> the 0.3 {@code PushNotificationConfig}. */
  static ObjectNode pushConfigIn(ObjectNode config) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    copy(config, out, "id");
    copy(config, out, "url");
    copy(config, out, "token");
    JsonNode auth = config.get("authentication");
    if (auth instanceof ObjectNode a) {
      ObjectNode authOut = out.putObject("authentication");
      JsonNode scheme = a.get("scheme");
      if (scheme != null && !scheme.isNull()) {
        authOut.putArray("schemes").add(scheme);
      }
      copy(a, authOut, "credentials");
    } else if (auth != null) {
      out.set("authentication", auth);
    }
    return out;
  }

  /**
   * {@code ListTasksRequest}: the state filter by its 1.0 name ({@code TASK_STATE_WORKING}) or 0.3
   * name.
   */
  static ObjectNode listParams(ObjectNode params) {
    ObjectNode out = params.deepCopy();
    dropEmpty(out, "contextId", "pageToken");
    JsonNode status = out.get("status");
    if (status != null && status.isTextual()) {
      String name = status.asText();
      if (name.isEmpty() || name.equals(STATE_PREFIX + "UNSPECIFIED")) {
        out.remove("status");
      } else if (name.startsWith(STATE_PREFIX)) {
        out.put(
            "status",
            name.substring(STATE_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '-'));
      }
    } else if (status != null && status.isIntegralNumber() && status.asInt() == 0) {
      out.remove("status");
    }
    return out;
  }

  /**
   * Push-config get/delete: {@code {taskId, id}} -> {@code {id: taskId, pushNotificationConfigId:
   * id}}.
   */
  static ObjectNode pushConfigRef(ObjectNode params) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.set("id", params.get("taskId"));
    out.set("pushNotificationConfigId", params.get("id"));
    return out;
  }

  /** Push-config list: {@code {taskId}} -> {@code {id: taskId}}. */
  static ObjectNode pushConfigTask(ObjectNode params) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.set("id", params.get("taskId"));
    return out;
  }

  /** Push-config create: the flat {@code TaskPushNotificationConfig} -> 0.3 set params. */
  static ObjectNode pushConfigCreate(ObjectNode params) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.set("taskId", params.get("taskId"));
    out.set("pushNotificationConfig", pushConfigIn(params));
    return out;
  }

  /**
   * Request params with every field named in lowerCamelCase: A2A 1.0 objects are ProtoJSON, whose
   * parsers accept a field's proto name ({@code task_id}, {@code history_length}) as well as its
   * JSON name ({@code taskId}). Free-form values ({@code data}, {@code metadata}) are left as sent.
   */
  static ObjectNode camelKeys(ObjectNode params) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    params
        .properties()
        .iterator()
        .forEachRemaining(
            e -> {
              String key = camel(e.getKey());
              JsonNode value = e.getValue();
              boolean freeForm = key.equals("data") || key.equals("metadata");
              out.set(key, freeForm ? value : camelKeys(value));
            });
    return out;
  }

  private static JsonNode camelKeys(JsonNode value) {
    if (value instanceof ObjectNode o) {
      return camelKeys(o);
    }
    if (value instanceof ArrayNode a) {
      ArrayNode out = Json.MAPPER.createArrayNode();
      a.forEach(v -> out.add(camelKeys(v)));
      return out;
    }
    return value;
  }

  /** {@code history_length} -> {@code historyLength}; a name without '_' is kept. */
  static String camel(String name) {
    if (name.indexOf('_') < 0) {
      return name;
    }
    StringBuilder b = new StringBuilder(name.length());
    boolean upper = false;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '_') {
        upper = b.length() > 0;
      } else {
        b.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return b.toString();
  }

  // ---- out: 0.3 results -> 1.0 objects ----

  static JsonNode task(JsonNode task) {
    if (!(task instanceof ObjectNode t)) {
      return task;
    }
    ObjectNode out = t.deepCopy();
    out.remove("kind");
    if (out.get("metadata") instanceof ObjectNode metadata) {
      // 1.0 names every field in lowerCamelCase (spec 5.5), the gateway's own metadata included
      out.set("metadata", camelKeys(metadata));
    }
    status(out.get("status"));
    eachObject(out.get("history"), V1Objects::message);
    eachObject(out.get("artifacts"), V1Objects::artifact);
    return out;
  }

  /**
   * {@code SendMessageResponse}: the task under {@code task}, or a direct agent message under
   * {@code message}.
   */
  static JsonNode sendResponse(JsonNode result) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    if ("message".equals(result.path("kind").asText()) && result instanceof ObjectNode m) {
      ObjectNode message = m.deepCopy();
      message(message);
      out.set("message", message);
      return out;
    }
    out.set("task", task(result));
    return out;
  }

  /** A 0.3 stream result -> {@code StreamResponse}, by its {@code kind}. */
  static JsonNode streamResponse(JsonNode result) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    String kind = result.path("kind").asText("");
    switch (kind) {
      case "status-update" -> {
        ObjectNode e = ((ObjectNode) result).deepCopy();
        e.remove("kind");
        e.remove("final"); // 1.0 ends the stream by closing it
        status(e.get("status"));
        out.set("statusUpdate", e);
      }
      case "artifact-update" -> {
        ObjectNode e = ((ObjectNode) result).deepCopy();
        e.remove("kind");
        artifact(e.get("artifact"));
        out.set("artifactUpdate", e);
      }
      case "message" -> {
        ObjectNode m = ((ObjectNode) result).deepCopy();
        message(m);
        out.set("message", m);
      }
      default -> out.set("task", task(result));
    }
    return out;
  }

  static JsonNode taskPage(JsonNode page) {
    if (!(page instanceof ObjectNode p)) {
      return page;
    }
    ObjectNode out = p.deepCopy();
    ArrayNode tasks = out.putArray("tasks");
    page.path("tasks").forEach(t -> tasks.add(task(t)));
    return out;
  }

  /**
   * 0.3 {@code {taskId, pushNotificationConfig}} -> the flat 1.0 {@code
   * TaskPushNotificationConfig}.
   */
  static JsonNode pushConfig(JsonNode taskConfig) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    JsonNode config = taskConfig.path("pushNotificationConfig");
    copy(config, out, "id");
    copy(taskConfig, out, "taskId");
    copy(config, out, "url");
    copy(config, out, "token");
    JsonNode auth = config.get("authentication");
    if (auth != null && auth.isObject()) {
      ObjectNode authOut = out.putObject("authentication");
      JsonNode schemes = auth.get("schemes");
      if (schemes != null && schemes.isArray() && !schemes.isEmpty()) {
        authOut.set("scheme", schemes.get(0));
      }
      copy(auth, authOut, "credentials");
    }
    return out;
  }

  /** {@code ListTaskPushNotificationConfigsResponse}: all configs on one page. */
  static JsonNode pushConfigList(JsonNode list) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    ArrayNode configs = out.putArray("configs");
    list.forEach(c -> configs.add(pushConfig(c)));
    out.put("nextPageToken", "");
    return out;
  }

  /** {@code google.protobuf.Empty}. */
  static JsonNode empty(JsonNode ignored) {
    return Json.MAPPER.createObjectNode();
  }

  private static void status(JsonNode status) {
    if (status instanceof ObjectNode s) {
      JsonNode state = s.get("state");
      if (state != null && state.isTextual()) {
        s.put("state", STATE_PREFIX + state.asText().toUpperCase(Locale.ROOT).replace('-', '_'));
      }
      if (s.get("message") instanceof ObjectNode m) {
        message(m);
      }
    }
  }

  private static void message(ObjectNode message) {
    message.remove("kind");
    JsonNode role = message.get("role");
    if (role != null && role.isTextual()) {
      message.put("role", "ROLE_" + role.asText().toUpperCase(Locale.ROOT));
    }
    eachObject(message.get("parts"), V1Objects::part);
  }

  private static void artifact(JsonNode artifact) {
    if (artifact instanceof ObjectNode a) {
      eachObject(a.get("parts"), V1Objects::part);
    }
  }

  private static void part(ObjectNode part) {
    JsonNode kind = part.remove("kind");
    if (kind != null && "file".equals(kind.asText())) {
      JsonNode file = part.remove("file");
      if (file instanceof ObjectNode f) {
        copyAs(f, part, "uri", "url");
        copyAs(f, part, "bytes", "raw");
        copyAs(f, part, "name", "filename");
        copyAs(f, part, "mimeType", "mediaType");
      }
    }
  }

  private static void eachObject(JsonNode list, Consumer<ObjectNode> each) {
    if (list != null && list.isArray()) {
      list.forEach(
          n -> {
            if (n instanceof ObjectNode o) {
              each.accept(o);
            }
          });
    }
  }

  private static boolean has(JsonNode node, String field) {
    JsonNode v = node.get(field);
    return v != null && !v.isNull();
  }

  /** proto3 writes unset strings as "": an empty id names nothing. */
  private static void dropEmpty(ObjectNode node, String... fields) {
    for (String f : fields) {
      JsonNode v = node.get(f);
      if (v != null && v.isTextual() && v.asText().isEmpty()) {
        node.remove(f);
      }
    }
  }

  private static void copy(JsonNode from, ObjectNode to, String field) {
    copyAs(from, to, field, field);
  }

  private static void copyAs(JsonNode from, ObjectNode to, String field, String as) {
    JsonNode v = from.get(field);
    if (v != null && !v.isNull()) {
      to.set(as, v);
    }
  }

  private static A2aException invalid(String what) {
    return new A2aException(A2aException.INVALID_PARAMS, "Invalid params: " + what);
  }
}

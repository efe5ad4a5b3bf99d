package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Gateway tasks as A2A 0.3 objects: the status mapping, {@code Task}, {@code TaskStatusUpdateEvent}
 * and {@code TaskArtifactUpdateEvent}. Pure: no I/O.
 *
 * <p>Status mapping (spec): succeeded -> completed, failed -> failed, canceled -> canceled,
 * paused -> input-required, auth_required -> auth-required; plus pending -> submitted,
 * running -> working, anything else -> unknown. A2A 0.3 writes states in kebab case
 * ({@code input-required}); the spec's {@code input_required} is the same state.
 */
public final class A2aTasks {
  public static final String FLY_ARTIFACT = "fly-stream";
  public static final String RESULT_ARTIFACT = "result";
  static final String SUBMITTED = "submitted";
  static final String WORKING = "working";
  static final String COMPLETED = "completed";
  static final String FAILED = "failed";
  static final String CANCELED = "canceled";
  static final String INPUT_REQUIRED = "input-required";
  static final String AUTH_REQUIRED = "auth-required";
  static final String UNKNOWN = "unknown";
  /** States after which the task can never change. */
  static final Set<String> TERMINAL = Set.of(COMPLETED, FAILED, CANCELED, "rejected");
  /** States that end a stream without ending the task. */
  static final Set<String> INTERRUPTED = Set.of(INPUT_REQUIRED, AUTH_REQUIRED);

  private A2aTasks() {}

  public static String state(TaskStatus status) {
    if (status == null) {
      return UNKNOWN;
    }
    return switch (status) {
      case PENDING -> SUBMITTED;
      case RUNNING -> WORKING;
      case SUCCEEDED -> COMPLETED;
      case FAILED -> FAILED;
      case CANCELED -> CANCELED;
      case PAUSED -> INPUT_REQUIRED;
      case AUTH_REQUIRED -> AUTH_REQUIRED;
      case UNKNOWN -> UNKNOWN;
    };
  }

  /** A2A state name -> gateway status (for {@code tasks/list} filters); null when unknown. */
  static TaskStatus gatewayStatus(String a2aState) {
    return switch (a2aState) {
      case SUBMITTED -> TaskStatus.PENDING;
      case WORKING -> TaskStatus.RUNNING;
      case COMPLETED -> TaskStatus.SUCCEEDED;
      case FAILED -> TaskStatus.FAILED;
      case CANCELED -> TaskStatus.CANCELED;
      case INPUT_REQUIRED, "input_required" -> TaskStatus.PAUSED;
      case AUTH_REQUIRED, "auth_required" -> TaskStatus.AUTH_REQUIRED;
      case UNKNOWN -> TaskStatus.UNKNOWN;
      default -> null;
    };
  }

  /** True when a stream ends at this state (terminal or interrupted). */
  static boolean endsStream(String a2aState) {
    return TERMINAL.contains(a2aState) || INTERRUPTED.contains(a2aState);
  }

  /**
   * The {@code Task} of a stored task. {@code history} (when {@code historyLength} is not 0) is
   * the first user message rebuilt from the payload (one data part) followed by one agent message
   * per stored update, the last {@code historyLength} of them; a completed task carries its result
   * as the artifact {@code result}.
   */
  public static ObjectNode task(TaskState s, Integer historyLength) {
    ObjectNode t = Json.MAPPER.createObjectNode();
    t.put("kind", "task");
    t.put("id", s.id());
    t.put("contextId", contextId(s));
    t.set("status", status(s.id(), contextId(s), s.status(), s.message(), s.error(), s.updatedAt(), s.seq()));
    if (s.status() == TaskStatus.SUCCEEDED && s.result() != null && !s.result().isNull()) {
      ObjectNode artifact = Json.MAPPER.createObjectNode();
      artifact.put("artifactId", RESULT_ARTIFACT);
      artifact.put("name", "result");
      artifact.set("parts", Json.MAPPER.createArrayNode().add(resultPart(s.result())));
      t.set("artifacts", Json.MAPPER.createArrayNode().add(artifact));
    }
    if (historyLength == null || historyLength > 0) {
      List<ObjectNode> history = new ArrayList<>();
      if (s.payload() != null && s.payload().isObject()) {
        history.add(message("user", s.id() + "-input", s.id(), contextId(s), dataPart(s.payload())));
      }
      for (TaskUpdate u : s.history()) {
        if (u.message() != null) {
          history.add(message("agent", s.id() + "-" + u.seq(), s.id(), contextId(s), textPart(u.message())));
        }
      }
      int from = historyLength == null ? 0 : Math.max(0, history.size() - historyLength);
      ArrayNode h = t.putArray("history");
      history.subList(from, history.size()).forEach(h::add);
    }
    ObjectNode meta = t.putObject("metadata");
    meta.put("flow", s.flow());
    meta.put("status", s.status() == null ? null : s.status().wire());
    meta.put("progress_percent", s.progressPercent());
    meta.put("created_at", s.createdAt());
    meta.put("updated_at", s.updatedAt());
    return t;
  }

  /** The Task of a task just created, before its state is folded. */
  static ObjectNode submitted(String taskId, String timestamp) {
    ObjectNode t = Json.MAPPER.createObjectNode();
    t.put("kind", "task");
    t.put("id", taskId);
    t.put("contextId", taskId);
    t.set("status", status(taskId, taskId, TaskStatus.PENDING, "Task created", null, timestamp, 1));
    return t;
  }

  static ObjectNode status(String taskId, String contextId, TaskStatus gatewayStatus, String message, String error,
      String timestamp, long seq) {
    ObjectNode st = Json.MAPPER.createObjectNode();
    st.put("state", state(gatewayStatus));
    String text = error != null && gatewayStatus == TaskStatus.FAILED ? error : message;
    if (text != null) {
      st.set("message", message("agent", taskId + "-" + seq, taskId, contextId, textPart(text)));
    }
    if (timestamp != null) {
      st.put("timestamp", timestamp);
    }
    return st;
  }

  static ObjectNode statusEvent(String taskId, String contextId, TaskUpdate u, boolean fin) {
    ObjectNode e = Json.MAPPER.createObjectNode();
    e.put("kind", "status-update");
    e.put("taskId", taskId);
    e.put("contextId", contextId);
    e.set("status", status(taskId, contextId, u.status(), u.message(), u.error(), u.timestamp(), u.seq()));
    e.put("final", fin);
    return e;
  }

  /** A chunk of the {@code fly-stream} artifact. */
  static ObjectNode artifactEvent(String taskId, String contextId, JsonNode part, boolean append, boolean lastChunk) {
    ObjectNode e = Json.MAPPER.createObjectNode();
    e.put("kind", "artifact-update");
    e.put("taskId", taskId);
    e.put("contextId", contextId);
    ObjectNode artifact = e.putObject("artifact");
    artifact.put("artifactId", FLY_ARTIFACT);
    artifact.put("name", FLY_ARTIFACT);
    artifact.set("parts", Json.MAPPER.createArrayNode().add(part));
    e.put("append", append);
    e.put("lastChunk", lastChunk);
    return e;
  }

  /**
   * The part of a FLY event: its {@code text} (or {@code token}) as a text part when it is a
   * string, else the whole event as a data part.
   */
  static ObjectNode flyPart(JsonNode fly) {
    for (String key : List.of("text", "token")) {
      JsonNode v = fly.get(key);
      if (v != null && v.isTextual()) {
        return textPart(v.asText());
      }
    }
    return dataPart(fly);
  }

  /** A result as a data part; a result that is not an object is wrapped as {@code {"result": ...}}. */
  static ObjectNode resultPart(JsonNode result) {
    if (result.isObject()) {
      return dataPart(result);
    }
    ObjectNode wrapped = Json.MAPPER.createObjectNode();
    wrapped.set("result", result);
    return dataPart(wrapped);
  }

  static ObjectNode textPart(String text) {
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("kind", "text");
    p.put("text", text);
    return p;
  }

  static ObjectNode dataPart(JsonNode data) {
    ObjectNode p = Json.MAPPER.createObjectNode();
    p.put("kind", "data");
    p.set("data", data);
    return p;
  }

  static ObjectNode message(String role, String messageId, String taskId, String contextId, ObjectNode part) {
    ObjectNode m = Json.MAPPER.createObjectNode();
    m.put("kind", "message");
    m.put("role", role);
    m.put("messageId", messageId);
    m.put("taskId", taskId);
    m.put("contextId", contextId);
    m.set("parts", Json.MAPPER.createArrayNode().add(part));
    return m;
  }

  static String contextId(TaskState s) {
    return s.contextId() != null ? s.contextId() : s.id();
  }
}

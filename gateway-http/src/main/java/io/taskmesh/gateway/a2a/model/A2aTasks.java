package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.ArrayList;
import java.util.List;

/**
 * Gateway tasks as A2A 0.3 objects: {@code Task}, {@code TaskStatus}, {@code TaskStatusUpdateEvent}
 * and {@code TaskArtifactUpdateEvent} of stored states and updates (the state mapping is {@link
 * A2aState}'s). Pure: no I/O.
 */
public final class A2aTasks {
  public static final String FLY_ARTIFACT = "fly-stream";
  public static final String RESULT_ARTIFACT = "result";

  private A2aTasks() {}

  /** The A2A state name of a gateway status. */
  public static String state(TaskStatus status) {
    return A2aState.of(status).wire();
  }

  /**
   * The {@code Task} of a stored task. {@code history} (when {@code historyLength} is not 0) is the
   * first user message rebuilt from the payload (one data part) followed by one agent message per
   * stored update, the last {@code historyLength} of them; a completed task carries its result as
   * the artifact {@code result}.
   */
  public static A2aTask task(TaskState s, Integer historyLength) {
    String contextId = contextId(s);
    List<A2aArtifact> artifacts = null;
    if (s.status() == TaskStatus.SUCCEEDED && s.result() != null && !s.result().isNull()) {
      ShapedResult shaped = ShapedResult.of(s.result());
      if (shaped.isEmpty()) {
        artifacts = List.of(resultArtifact(s.result()));
      } else if (!shaped.namedArtifacts().isEmpty()) {
        artifacts = shaped.namedArtifacts();
      }
    }
    List<A2aMessage> history = null;
    if (historyLength == null || historyLength > 0) {
      List<A2aMessage> all = new ArrayList<>();
      if (s.payload() != null && s.payload().isObject()) {
        all.add(
            message(
                A2aMessage.USER,
                s.id() + "-input",
                s.id(),
                contextId,
                new A2aPart.Data(s.payload())));
      }
      for (TaskUpdate u : s.history()) {
        if (u.message() != null) {
          all.add(
              message(
                  A2aMessage.AGENT,
                  s.id() + "-" + u.seq(),
                  s.id(),
                  contextId,
                  new A2aPart.Text(u.message())));
        }
      }
      int from = historyLength == null ? 0 : Math.max(0, all.size() - historyLength);
      history = all.subList(from, all.size());
    }
    TaskMetadata metadata =
        new TaskMetadata(
            s.flow(),
            s.status() == null ? null : s.status().wire(),
            s.progressPercent(),
            s.createdAt(),
            s.updatedAt());
    return new A2aTask(
        s.id(),
        contextId,
        shape(
            status(
                s.id(),
                contextId,
                s.status(),
                statusText(s.status(), s.message(), s.error(), s.errorDetails(), s.result()),
                s.updatedAt(),
                s.seq()),
            s.status(),
            s.result(),
            s.id(),
            contextId,
            s.seq()),
        artifacts,
        history,
        metadata);
  }

  /** The Task of a task just created as its own context, before its state is folded. */
  public static A2aTask submitted(String taskId, String timestamp) {
    return submitted(taskId, taskId, timestamp);
  }

  /** The Task of a task just created in {@code contextId}, before its state is folded. */
  public static A2aTask submitted(String taskId, String contextId, String timestamp) {
    return A2aTask.bare(
        taskId,
        contextId,
        status(taskId, contextId, TaskStatus.PENDING, "Task created", timestamp, 1));
  }

  /** The status of a task at update {@code seq}, saying {@code text}. */
  public static A2aTaskStatus status(
      String taskId,
      String contextId,
      TaskStatus gatewayStatus,
      String text,
      String timestamp,
      long seq) {
    A2aMessage said =
        text == null
            ? null
            : message(
                A2aMessage.AGENT, taskId + "-" + seq, taskId, contextId, new A2aPart.Text(text));
    return new A2aTaskStatus(A2aState.of(gatewayStatus), said, timestamp);
  }

  /** The status of an update, as of that update. */
  public static A2aTaskStatus status(String taskId, String contextId, TaskUpdate u) {
    return shape(
        status(
            taskId,
            contextId,
            u.status(),
            statusText(u.status(), u.message(), u.error(), u.errorDetails(), u.result()),
            u.timestamp(),
            u.seq()),
        u.status(),
        u.result(),
        taskId,
        contextId,
        u.seq());
  }

  /**
   * A completed task's status as its result asks ({@link ShapedResult}): its own final message
   * text, or the state {@code rejected}.
   */
  private static A2aTaskStatus shape(
      A2aTaskStatus status,
      TaskStatus gatewayStatus,
      JsonNode result,
      String taskId,
      String contextId,
      long seq) {
    if (gatewayStatus != TaskStatus.SUCCEEDED) {
      return status;
    }
    ShapedResult shaped = ShapedResult.of(result);
    if (shaped.isEmpty()) {
      return status;
    }
    A2aMessage said =
        shaped.status() == null
            ? status.message()
            : message(
                A2aMessage.AGENT,
                taskId + "-" + seq,
                taskId,
                contextId,
                new A2aPart.Text(shaped.status()));
    return new A2aTaskStatus(
        shaped.rejected() ? A2aState.REJECTED : status.state(), said, status.timestamp());
  }

  /**
   * The direct agent message a waiting send answers instead of the task, when the completed task's
   * result asks for one ({@link ShapedResult#reply()}); else null.
   */
  public static A2aMessage reply(TaskState s) {
    if (s.status() != TaskStatus.SUCCEEDED) {
      return null;
    }
    List<A2aPart> parts = ShapedResult.of(s.result()).reply();
    return parts == null
        ? null
        : new A2aMessage(A2aMessage.AGENT, s.id() + "-reply", null, contextId(s), parts);
  }

  public static StatusUpdateEvent statusEvent(
      String taskId, String contextId, TaskUpdate u, boolean fin) {
    return new StatusUpdateEvent(taskId, contextId, status(taskId, contextId, u), fin);
  }

  /** A chunk of the {@code fly-stream} artifact. */
  public static ArtifactUpdateEvent artifactEvent(
      String taskId, String contextId, A2aPart part, boolean append, boolean lastChunk) {
    return new ArtifactUpdateEvent(
        taskId,
        contextId,
        new A2aArtifact(FLY_ARTIFACT, FLY_ARTIFACT, List.of(part)),
        append,
        lastChunk);
  }

  /**
   * The part of a FLY event: its {@code text} (or {@code token}) as a text part when it is a
   * string, else the whole event as a data part.
   */
  public static A2aPart flyPart(JsonNode fly) {
    for (String key : List.of("text", "token")) {
      JsonNode v = fly.get(key);
      if (v != null && v.isTextual()) {
        return new A2aPart.Text(v.asText());
      }
    }
    return new A2aPart.Data(fly);
  }

  /**
   * What a status says: a completed task its result as a person reads it, a failed one its error
   * with the failing actor and traceback, a paused one the handler's question (the fold made it the
   * message), any other the update's message.
   */
  static String statusText(
      TaskStatus status, String message, String error, ErrorDetails details, JsonNode result) {
    if (status == TaskStatus.FAILED && (error != null || details != null)) {
      return ErrorDetails.describe(error, details);
    }
    if (status == TaskStatus.SUCCEEDED && result != null && !result.isNull()) {
      return readable(result);
    }
    return message;
  }

  /**
   * The artifact {@code result}: the flow's result as data, and as text a person can read, apart
   * from the {@code fly-stream} artifact that carries the task's tokens.
   */
  public static A2aArtifact resultArtifact(JsonNode result) {
    return new A2aArtifact(
        RESULT_ARTIFACT,
        RESULT_ARTIFACT,
        List.of(resultPart(result), new A2aPart.Text(readable(result))));
  }

  /**
   * A result as text: a string as it is, an object's {@code text} field when it is a string (what a
   * text flow answers), else the result as JSON.
   */
  static String readable(JsonNode result) {
    if (result.isTextual()) {
      return result.asText();
    }
    if (result.isObject() && result.path("text").isTextual()) {
      return result.get("text").asText();
    }
    return Json.write(result);
  }

  /**
   * A result as a data part; a result that is not an object is wrapped as {@code {"result": ...}}.
   */
  public static A2aPart resultPart(JsonNode result) {
    if (result.isObject()) {
      return new A2aPart.Data(result);
    }
    ObjectNode wrapped = Json.MAPPER.createObjectNode();
    wrapped.set("result", result);
    return new A2aPart.Data(wrapped);
  }

  private static A2aMessage message(
      String role, String messageId, String taskId, String contextId, A2aPart part) {
    return new A2aMessage(role, messageId, taskId, contextId, List.of(part));
  }

  /**
   * The task's conversation: the client's contextId, or (tasks created before it was kept) the task
   * id.
   */
  public static String contextId(TaskState s) {
    return s.contextId() != null ? s.contextId() : s.id();
  }
}

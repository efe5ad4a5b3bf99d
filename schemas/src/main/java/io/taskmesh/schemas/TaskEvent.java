package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Set;
import java.util.UUID;

/**
 * One fact about a gateway task, appended to {@link Topics#TASK_EVENTS} keyed by task id. The log
 * of these is the source of truth; task state is a fold over it. {@code event_id} makes a
 * re-delivered event a no-op.
 *
 * <p>Types and the field each one carries: {@code created} and {@code child_created} (fan-out
 * child, {@code created.parent_id} set) carry {@code created}; {@code progress} carries {@code
 * progress}; {@code final} carries {@code final} (status succeeded or failed); {@code paused}
 * carries {@code final} as x-pause's sidecar sends it (status paused, metadata); {@code canceled},
 * {@code deadline_expired} and {@code resumed} (a paused task given new input) carry {@code
 * reason}.
 */
public record TaskEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("task_id") String taskId,
    @JsonProperty("type") String type,
    @JsonProperty("timestamp") String timestamp,
    @JsonProperty("created") Created created,
    @JsonProperty("progress") ProgressReport progress,
    @JsonProperty("final") FinalReport finalReport,
    @JsonProperty("reason") String reason) {

  public static final String CREATED = "created";
  public static final String CHILD_CREATED = "child_created";
  public static final String PROGRESS = "progress";
  public static final String FINAL = "final";
  public static final String PAUSED = "paused";
  public static final String CANCELED = "canceled";
  public static final String DEADLINE_EXPIRED = "deadline_expired";
  public static final String RESUMED = "resumed";
  public static final Set<String> TYPES =
      Set.of(CREATED, CHILD_CREATED, PROGRESS, FINAL, PAUSED, CANCELED, DEADLINE_EXPIRED, RESUMED);

  public TaskEvent {
    if (taskId == null || taskId.isBlank()) {
      throw new IllegalArgumentException("task event: 'task_id' is required");
    }
    if (type == null) {
      throw new IllegalArgumentException("task event: 'type' is required");
    }
    eventId = eventId == null ? UUID.randomUUID().toString() : eventId;
    timestamp = timestamp == null ? Times.now() : timestamp;
  }

  /** What a task starts with: its flow, route, input and optional deadline. */
  public record Created(
      @JsonProperty("flow") String flow,
      @JsonProperty("route") Route route,
      @JsonProperty("payload") JsonNode payload,
      @JsonProperty("parent_id") String parentId,
      @JsonProperty("context_id") String contextId,
      @JsonProperty("deadline_at") String deadlineAt,
      @JsonProperty("owner") String owner) {}

  public static TaskEvent created(String taskId, Created created) {
    return new TaskEvent(null, taskId, CREATED, null, created, null, null, null);
  }

  /**
   * A fan-out child ({@code POST /mesh}, {@code POST /tasks}); {@code created.parent_id} names the
   * parent.
   */
  public static TaskEvent childCreated(String taskId, Created created) {
    return new TaskEvent(null, taskId, CHILD_CREATED, null, created, null, null, null);
  }

  public static TaskEvent progress(String taskId, ProgressReport report) {
    return new TaskEvent(null, taskId, PROGRESS, null, null, report, null, null);
  }

  public static TaskEvent finished(String taskId, FinalReport report) {
    return new TaskEvent(null, taskId, FINAL, null, null, null, report, null);
  }

  /**
   * A paused task was given new input (A2A {@code message/send}) and goes on: paused -> running.
   */
  public static TaskEvent resumed(String taskId, String reason) {
    return new TaskEvent(null, taskId, RESUMED, null, null, null, null, reason);
  }

  public static TaskEvent paused(String taskId, FinalReport report) {
    return new TaskEvent(null, taskId, PAUSED, null, null, null, report, null);
  }

  public static TaskEvent canceled(String taskId, String reason) {
    return new TaskEvent(null, taskId, CANCELED, null, null, null, null, reason);
  }

  /** Emitted by the deadline backstop; the id is fixed per task so a repeat is a no-op. */
  public static TaskEvent deadlineExpired(String taskId, String deadlineAt) {
    return new TaskEvent(
        "deadline:" + taskId,
        taskId,
        DEADLINE_EXPIRED,
        null,
        null,
        null,
        null,
        "timeout: no final report by " + deadlineAt);
  }
}

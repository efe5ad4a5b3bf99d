package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;

/**
 * One fact about a gateway task, appended to {@link Topics#TASK_EVENTS} keyed by task id. The
 * log of these is the source of truth; task state is a fold over it. {@code event_id} makes a
 * re-delivered event a no-op.
 */
public record TaskEvent(
    @JsonProperty("event_id") String eventId,
    @JsonProperty("task_id") String taskId,
    @JsonProperty("type") String type,
    @JsonProperty("timestamp") String timestamp,
    @JsonProperty("created") Created created,
    @JsonProperty("progress") ProgressReport progress,
    @JsonProperty("final") FinalReport finalReport) {

  public static final String CREATED = "created";
  public static final String PROGRESS = "progress";
  public static final String FINAL = "final";

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
    return new TaskEvent(null, taskId, CREATED, null, created, null, null);
  }

  public static TaskEvent progress(String taskId, ProgressReport report) {
    return new TaskEvent(null, taskId, PROGRESS, null, null, report, null);
  }

  public static TaskEvent finished(String taskId, FinalReport report) {
    return new TaskEvent(null, taskId, FINAL, null, null, null, report);
  }
}

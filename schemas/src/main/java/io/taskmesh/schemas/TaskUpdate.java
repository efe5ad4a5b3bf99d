package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One accepted change of a task: the data of an SSE {@code update} event. {@code seq} is the task's
 * own sequence number (1, 2, ...) and is the SSE {@code id:} of the event. Built with {@link #of}
 * and the withers; the fields a change does not touch stay null (omitted on the wire).
 */
public record TaskUpdate(
    @JsonProperty("id") String id,
    @JsonProperty("seq") long seq,
    @JsonProperty("status") TaskStatus status,
    @JsonProperty("progress_percent") Double progressPercent,
    @JsonProperty("current_actor_idx") Integer currentActorIdx,
    @JsonProperty("actor_state") String actorState,
    @JsonProperty("actor") String actor,
    @JsonProperty("actors") List<String> actors,
    @JsonProperty("message") String message,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("timestamp") String timestamp) {

  /** An update of task {@code id} to {@code status}, with nothing else set yet. */
  public static TaskUpdate of(
      String id, long seq, TaskStatus status, String message, String timestamp) {
    return new TaskUpdate(
        id, seq, status, null, null, null, null, null, message, null, null, timestamp);
  }

  public TaskUpdate withProgress(Double percent) {
    return new TaskUpdate(
        id,
        seq,
        status,
        percent,
        currentActorIdx,
        actorState,
        actor,
        actors,
        message,
        result,
        error,
        timestamp);
  }

  public TaskUpdate withActorIdx(Integer idx) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        idx,
        actorState,
        actor,
        actors,
        message,
        result,
        error,
        timestamp);
  }

  /** The actor's own progress state: received, processing or completed. */
  public TaskUpdate withActorState(String state) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        currentActorIdx,
        state,
        actor,
        actors,
        message,
        result,
        error,
        timestamp);
  }

  public TaskUpdate withActor(String name) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        currentActorIdx,
        actorState,
        name,
        actors,
        message,
        result,
        error,
        timestamp);
  }

  public TaskUpdate withActors(List<String> all) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        currentActorIdx,
        actorState,
        actor,
        all,
        message,
        result,
        error,
        timestamp);
  }

  public TaskUpdate withResult(JsonNode value) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        currentActorIdx,
        actorState,
        actor,
        actors,
        message,
        value,
        error,
        timestamp);
  }

  public TaskUpdate withError(String text) {
    return new TaskUpdate(
        id,
        seq,
        status,
        progressPercent,
        currentActorIdx,
        actorState,
        actor,
        actors,
        message,
        result,
        text,
        timestamp);
  }

  public boolean isFinal() {
    return status != null && status.isFinal();
  }
}

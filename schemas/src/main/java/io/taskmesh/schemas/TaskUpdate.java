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
    @JsonProperty("error_details") ErrorDetails errorDetails,
    @JsonProperty("question") String question,
    @JsonProperty("input_requests") JsonNode inputRequests,
    @JsonProperty("timestamp") String timestamp) {

  /** An update of task {@code id} to {@code status}, with nothing else set yet. */
  public static TaskUpdate of(
      String id, long seq, TaskStatus status, String message, String timestamp) {
    return new TaskUpdate(
        id, seq, status, null, null, null, null, null, message, null, null, null, null, null,
        timestamp);
  }

  public TaskUpdate withProgress(Double percent) {
    Draft d = new Draft(this);
    d.progressPercent = percent;
    return d.done();
  }

  public TaskUpdate withActorIdx(Integer idx) {
    Draft d = new Draft(this);
    d.currentActorIdx = idx;
    return d.done();
  }

  /** The actor's own progress state: received, processing or completed. */
  public TaskUpdate withActorState(String state) {
    Draft d = new Draft(this);
    d.actorState = state;
    return d.done();
  }

  public TaskUpdate withActor(String name) {
    Draft d = new Draft(this);
    d.actor = name;
    return d.done();
  }

  public TaskUpdate withActors(List<String> all) {
    Draft d = new Draft(this);
    d.actors = all;
    return d.done();
  }

  public TaskUpdate withResult(JsonNode value) {
    Draft d = new Draft(this);
    d.result = value;
    return d.done();
  }

  public TaskUpdate withError(String text) {
    Draft d = new Draft(this);
    d.error = text;
    return d.done();
  }

  /** Why the task failed, beyond {@code error}: failing actor, type, reason, traceback. */
  public TaskUpdate withErrorDetails(ErrorDetails details) {
    Draft d = new Draft(this);
    d.errorDetails = details;
    return d.done();
  }

  /** What a paused task asks its caller (the handler's {@code x-svc-pause} text). */
  public TaskUpdate withQuestion(String text) {
    Draft d = new Draft(this);
    d.question = text;
    return d.done();
  }

  /**
   * What a paused task's handler asks for by name ({@code x-svc-input-requests}, see {@link
   * InputRequests}): each entry one request of the caller's client; null when it asked only its
   * question.
   */
  public TaskUpdate withInputRequests(JsonNode requests) {
    Draft d = new Draft(this);
    d.inputRequests = requests;
    return d.done();
  }

  public boolean isFinal() {
    return status != null && status.isFinal();
  }

  /**
   * A mutable copy of a state: a wither sets the fields it changes and builds the record again,
   * instead of spelling out every component.
   */
  private static final class Draft {
    String id;
    long seq;
    TaskStatus status;
    Double progressPercent;
    Integer currentActorIdx;
    String actorState;
    String actor;
    List<String> actors;
    String message;
    JsonNode result;
    String error;
    ErrorDetails errorDetails;
    String question;
    JsonNode inputRequests;
    String timestamp;

    Draft(TaskUpdate s) {
      id = s.id();
      seq = s.seq();
      status = s.status();
      progressPercent = s.progressPercent();
      currentActorIdx = s.currentActorIdx();
      actorState = s.actorState();
      actor = s.actor();
      actors = s.actors();
      message = s.message();
      result = s.result();
      error = s.error();
      errorDetails = s.errorDetails();
      question = s.question();
      inputRequests = s.inputRequests();
      timestamp = s.timestamp();
    }

    TaskUpdate done() {
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
          error,
          errorDetails,
          question,
          inputRequests,
          timestamp);
    }
  }
}

package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The folded state of one task, as kept in the {@code tasks} store. {@code history} holds the
 * updates emitted so far (bounded) so an SSE client can replay them; {@code recent_event_ids} makes
 * re-delivered events no-ops. Built by {@link #created} and changed through the withers, so the
 * fold reads as the transitions it applies.
 */
public record TaskState(
    @JsonProperty("id") String id,
    @JsonProperty("parent_id") String parentId,
    @JsonProperty("context_id") String contextId,
    @JsonProperty("flow") String flow,
    @JsonProperty("owner") String owner,
    @JsonProperty("status") TaskStatus status,
    @JsonProperty("message") String message,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("error_details") ErrorDetails errorDetails,
    @JsonProperty("question") String question,
    @JsonProperty("input_requests") JsonNode inputRequests,
    @JsonProperty("route") Route route,
    @JsonProperty("payload") JsonNode payload,
    @JsonProperty("progress_percent") double progressPercent,
    @JsonProperty("current_actor_idx") int currentActorIdx,
    @JsonProperty("current_actor_name") String currentActorName,
    @JsonProperty("current_actor_state") String currentActorState,
    @JsonProperty("actors_completed") int actorsCompleted,
    @JsonProperty("total_actors") int totalActors,
    @JsonProperty("created_at") String createdAt,
    @JsonProperty("updated_at") String updatedAt,
    @JsonProperty("deadline_at") String deadlineAt,
    @JsonProperty("seq") long seq,
    @JsonProperty("history") List<TaskUpdate> history,
    @JsonProperty("recent_event_ids") List<String> recentEventIds) {

  public TaskState {
    history = history == null ? List.of() : List.copyOf(history);
    recentEventIds = recentEventIds == null ? List.of() : List.copyOf(recentEventIds);
  }

  /**
   * The state of a task just created: what {@code created} says, at its first update ({@code
   * first}: status, message, seq, time), no progress yet, {@code eventId} remembered.
   */
  public static TaskState created(
      String id, TaskEvent.Created created, TaskUpdate first, String eventId) {
    Route route = created.route();
    return new TaskState(
        id,
        created.parentId(),
        created.contextId(),
        created.flow(),
        created.owner(),
        first.status(),
        first.message(),
        null,
        null,
        null,
        null,
        null,
        route,
        created.payload(),
        0.0,
        route.prev().size(),
        route.curr(),
        null,
        0,
        route.totalActors(),
        first.timestamp(),
        first.timestamp(),
        created.deadlineAt(),
        first.seq(),
        List.of(first),
        List.of(eventId));
  }

  /**
   * A task known only by its id, context, owner and status, before any event of it is folded (a
   * stand-in while the created event is on its way).
   */
  public static TaskState announced(
      String id, String contextId, String owner, TaskStatus status, String message, String at) {
    return new TaskState(
        id, null, contextId, null, owner, status, message, null, null, null, null, null, null, null,
        0, 0, null, null, 0, 0, at, at, null, 0, List.of(), List.of());
  }

  /**
   * The state once {@code update} is applied: its status, message, result, error, progress (when
   * set), seq and timestamp. History and event ids are the fold's to bound, see the withers below.
   */
  public TaskState withUpdate(TaskUpdate update) {
    double percent = update.progressPercent() != null ? update.progressPercent() : progressPercent;
    Draft d = new Draft(this);
    d.status = update.status();
    d.message = update.message();
    d.result = update.result();
    d.error = update.error();
    d.errorDetails = update.errorDetails();
    d.question = update.question();
    d.inputRequests = update.inputRequests();
    d.progressPercent = percent;
    d.updatedAt = update.timestamp();
    d.seq = update.seq();
    return d.done();
  }

  /** The actor now at work: its index in the route and its name. */
  public TaskState withCurrentActor(int idx, String name) {
    Draft d = new Draft(this);
    d.currentActorIdx = idx;
    d.currentActorName = name;
    return d.done();
  }

  /** The actor that last spoke for the task (a final or pause report names it), same index. */
  public TaskState withCurrentActorName(String name) {
    return withCurrentActor(currentActorIdx, name);
  }

  /**
   * The actor now at work, its index in the full route, and how far it got ({@code received},
   * {@code processing}, {@code completed}; null when no actor reported yet). Index and name always
   * go together: {@code route.actors().get(idx)} is the name while the actor is in the route.
   */
  public TaskState withCurrentActor(int idx, String name, String actorState) {
    Draft d = new Draft(this);
    d.currentActorIdx = idx;
    d.currentActorName = name;
    d.currentActorState = actorState;
    return d.done();
  }

  /** The task's current route: a handler may extend {@code next} while the task runs. */
  public TaskState withRoute(Route current) {
    Draft d = new Draft(this);
    d.route = current;
    return d.done();
  }

  public TaskState withActorsCompleted(int completed) {
    Draft d = new Draft(this);
    d.actorsCompleted = completed;
    return d.done();
  }

  public TaskState withTotalActors(int total) {
    Draft d = new Draft(this);
    d.totalActors = total;
    return d.done();
  }

  /** The same state with another history (the view keeps the history in a store of its own). */
  public TaskState withHistory(List<TaskUpdate> updates) {
    Draft d = new Draft(this);
    d.history = updates;
    return d.done();
  }

  public TaskState withRecentEventIds(List<String> eventIds) {
    Draft d = new Draft(this);
    d.recentEventIds = eventIds;
    return d.done();
  }

  @JsonIgnore // derived from status; written, it was an unknown field to buffer on every read
  public boolean isFinal() {
    return status != null && status.isFinal();
  }

  /**
   * A mutable copy of a state: a wither sets the fields it changes and builds the record again,
   * instead of spelling out every component.
   */
  private static final class Draft {
    String id;
    String parentId;
    String contextId;
    String flow;
    String owner;
    TaskStatus status;
    String message;
    JsonNode result;
    String error;
    ErrorDetails errorDetails;
    String question;
    JsonNode inputRequests;
    Route route;
    JsonNode payload;
    double progressPercent;
    int currentActorIdx;
    String currentActorName;
    String currentActorState;
    int actorsCompleted;
    int totalActors;
    String createdAt;
    String updatedAt;
    String deadlineAt;
    long seq;
    List<TaskUpdate> history;
    List<String> recentEventIds;

    Draft(TaskState s) {
      id = s.id();
      parentId = s.parentId();
      contextId = s.contextId();
      flow = s.flow();
      owner = s.owner();
      status = s.status();
      message = s.message();
      result = s.result();
      error = s.error();
      errorDetails = s.errorDetails();
      question = s.question();
      inputRequests = s.inputRequests();
      route = s.route();
      payload = s.payload();
      progressPercent = s.progressPercent();
      currentActorIdx = s.currentActorIdx();
      currentActorName = s.currentActorName();
      currentActorState = s.currentActorState();
      actorsCompleted = s.actorsCompleted();
      totalActors = s.totalActors();
      createdAt = s.createdAt();
      updatedAt = s.updatedAt();
      deadlineAt = s.deadlineAt();
      seq = s.seq();
      history = s.history();
      recentEventIds = s.recentEventIds();
    }

    TaskState done() {
      return new TaskState(
          id,
          parentId,
          contextId,
          flow,
          owner,
          status,
          message,
          result,
          error,
          errorDetails,
          question,
          inputRequests,
          route,
          payload,
          progressPercent,
          currentActorIdx,
          currentActorName,
          currentActorState,
          actorsCompleted,
          totalActors,
          createdAt,
          updatedAt,
          deadlineAt,
          seq,
          history,
          recentEventIds);
    }
  }
}

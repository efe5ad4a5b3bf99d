package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * The folded state of one task, as kept in the {@code tasks} store. {@code history} holds the
 * updates emitted so far (bounded) so an SSE client can replay them; {@code recent_event_ids}
 * makes re-delivered events no-ops.
 */
public record TaskState(
    @JsonProperty("id") String id,
    @JsonProperty("parent_id") String parentId,
    @JsonProperty("context_id") String contextId,
    @JsonProperty("flow") String flow,
    @JsonProperty("owner") String owner,
    @JsonProperty("status") String status,
    @JsonProperty("message") String message,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("route") Route route,
    @JsonProperty("payload") JsonNode payload,
    @JsonProperty("progress_percent") double progressPercent,
    @JsonProperty("current_actor_idx") int currentActorIdx,
    @JsonProperty("current_actor_name") String currentActorName,
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

  /** The same state with another history (the view keeps the history in a store of its own). */
  public TaskState withHistory(List<TaskUpdate> updates) {
    return new TaskState(id, parentId, contextId, flow, owner, status, message, result, error, route, payload,
        progressPercent, currentActorIdx, currentActorName, actorsCompleted, totalActors, createdAt, updatedAt,
        deadlineAt, seq, updates, recentEventIds);
  }

  @JsonIgnore // derived from status; written, it was an unknown field to buffer on every read
  public boolean isFinal() {
    return TaskStatus.isFinal(status);
  }
}

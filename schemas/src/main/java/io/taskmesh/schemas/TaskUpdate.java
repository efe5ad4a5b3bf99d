package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/**
 * One accepted change of a task: the data of an SSE {@code update} event. {@code seq} is the
 * task's own sequence number (1, 2, ...) and is the SSE {@code id:} of the event.
 */
public record TaskUpdate(
    @JsonProperty("id") String id,
    @JsonProperty("seq") long seq,
    @JsonProperty("status") String status,
    @JsonProperty("progress_percent") Double progressPercent,
    @JsonProperty("current_actor_idx") Integer currentActorIdx,
    @JsonProperty("actor_state") String actorState,
    @JsonProperty("actor") String actor,
    @JsonProperty("actors") List<String> actors,
    @JsonProperty("message") String message,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("timestamp") String timestamp) {

  public boolean isFinal() {
    return TaskStatus.isFinal(status);
  }
}

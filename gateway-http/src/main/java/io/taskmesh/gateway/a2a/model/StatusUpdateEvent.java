package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** An A2A {@code TaskStatusUpdateEvent}; {@code final} closes the stream. */
@JsonPropertyOrder({"kind", "taskId", "contextId", "status", "final"})
public record StatusUpdateEvent(
    String taskId, String contextId, A2aTaskStatus status, @JsonProperty("final") boolean last)
    implements StreamResult {

  public StatusUpdateEvent {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(contextId, "contextId");
    Objects.requireNonNull(status, "status");
  }

  @JsonProperty("kind")
  public String kind() {
    return "status-update";
  }
}

package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Objects;

/** An A2A {@code TaskArtifactUpdateEvent}: one chunk of an artifact. */
@JsonPropertyOrder({"kind", "taskId", "contextId", "artifact", "append", "lastChunk"})
public record ArtifactUpdateEvent(
    String taskId, String contextId, A2aArtifact artifact, boolean append, boolean lastChunk)
    implements StreamResult {

  public ArtifactUpdateEvent {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(contextId, "contextId");
    Objects.requireNonNull(artifact, "artifact");
  }

  @JsonProperty("kind")
  public String kind() {
    return "artifact-update";
  }
}

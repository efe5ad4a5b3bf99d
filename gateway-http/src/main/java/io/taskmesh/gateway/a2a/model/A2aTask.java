package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/**
 * An A2A {@code Task}. {@code artifacts}, {@code history} and {@code metadata} are omitted when
 * null (a task just launched has none; {@code historyLength: 0} asks for no history).
 */
@JsonPropertyOrder({"kind", "id", "contextId", "status", "artifacts", "history", "metadata"})
public record A2aTask(
    String id,
    String contextId,
    A2aTaskStatus status,
    List<A2aArtifact> artifacts,
    List<A2aMessage> history,
    TaskMetadata metadata)
    implements StreamResult {

  public A2aTask {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(contextId, "contextId");
    Objects.requireNonNull(status, "status");
    artifacts = artifacts == null ? null : List.copyOf(artifacts);
    history = history == null ? null : List.copyOf(history);
  }

  /** A task known by its id, context and status only. */
  public static A2aTask bare(String id, String contextId, A2aTaskStatus status) {
    return new A2aTask(id, contextId, status, null, null, null);
  }

  @JsonProperty("kind")
  public String kind() {
    return "task";
  }

  public A2aTask withStatus(A2aTaskStatus newStatus) {
    return new A2aTask(id, contextId, newStatus, artifacts, history, metadata);
  }

  public A2aTask withoutArtifacts() {
    return new A2aTask(id, contextId, status, null, history, metadata);
  }
}

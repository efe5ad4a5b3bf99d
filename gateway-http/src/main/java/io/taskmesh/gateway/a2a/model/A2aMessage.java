package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Objects;

/** An A2A {@code Message} of a task: the user's input rebuilt, or an agent's status text. */
@JsonPropertyOrder({"kind", "role", "messageId", "taskId", "contextId", "parts"})
public record A2aMessage(
    String role, String messageId, String taskId, String contextId, List<A2aPart> parts) {
  public static final String USER = "user";
  public static final String AGENT = "agent";

  public A2aMessage {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(messageId, "messageId");
    parts = List.copyOf(parts);
  }

  @JsonProperty("kind")
  public String kind() {
    return "message";
  }
}

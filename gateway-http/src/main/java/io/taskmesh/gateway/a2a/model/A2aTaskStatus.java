package io.taskmesh.gateway.a2a.model;

import java.util.Objects;

/**
 * An A2A {@code TaskStatus}: the state, and the agent's message and time when known (else omitted).
 */
public record A2aTaskStatus(A2aState state, A2aMessage message, String timestamp) {
  public A2aTaskStatus {
    Objects.requireNonNull(state, "state");
  }
}

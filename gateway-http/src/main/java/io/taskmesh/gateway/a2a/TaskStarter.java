package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.FlowConfig;

/**
 * Starts and resumes tasks for the A2A edge. A failure to hand the work on is an {@link
 * A2aException} (the gateway's adapter says which), so this package needs no gateway class.
 */
public interface TaskStarter {
  /** Starts a task of {@code flow} with {@code payload} for {@code owner}; returns its id. */
  default String start(FlowConfig flow, JsonNode payload, String owner) {
    return start(flow, payload, owner, null);
  }

  /**
   * Starts a task in the client's conversation {@code contextId} (kept with the task; null: the
   * task's own id is its context); returns its id.
   */
  String start(FlowConfig flow, JsonNode payload, String owner, String contextId);

  /** Hands new input to a paused task. */
  void resume(String taskId, JsonNode input);
}

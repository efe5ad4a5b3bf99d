package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The params of {@code notifications/message} carrying a task's FLY event (a token stream) at level
 * {@code info}. Ours: the SDK's level enum and its data member would be a second way to say what
 * these two strings and one object say.
 */
public record LogMessageParams(String level, String logger, FlyEvent data) {
  /** The data of a FLY message: the task it streams from and the event as the flow sent it. */
  public record FlyEvent(String taskId, JsonNode event) {}

  public static LogMessageParams fly(String taskId, JsonNode event) {
    return new LogMessageParams("info", "taskmesh/fly", new FlyEvent(taskId, event));
  }
}

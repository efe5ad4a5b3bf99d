package io.taskmesh.gateway.mcp.wire;

import java.util.Map;

/** The {@code _meta} member that ties a message to the task it is about. */
public record RelatedTask(String taskId) {
  public static final String META_KEY = "io.modelcontextprotocol/related-task";

  /** A {@code _meta} object holding only this member. */
  public static Map<String, Object> meta(String taskId) {
    return Map.of(META_KEY, new RelatedTask(taskId));
  }
}

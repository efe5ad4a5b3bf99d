package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * The session era's {@code tasks/list} answer: one page of the caller's tasks, newest first.
 *
 * @param nextCursor the opaque cursor of the next page; null (absent) on the last
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TaskList(List<McpTask> tasks, String nextCursor) {
  public TaskList {
    tasks = List.copyOf(tasks);
  }
}

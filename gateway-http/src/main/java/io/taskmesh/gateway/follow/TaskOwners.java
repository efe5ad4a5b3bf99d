package io.taskmesh.gateway.follow;

import io.taskmesh.schemas.TaskState;
import java.util.Objects;

/**
 * The one owner-isolation rule of every client route, whichever protocol and auth is switched on: a
 * caller sees a task only when the task's owner is the caller's owner. An anonymous caller (its
 * protocol's auth off) has the owner null, so it sees the tasks of other anonymous callers and
 * never one an authenticated caller started, even when another protocol authenticates (MCP off, A2A
 * on, or the reverse). Decision record: docs/decisions/0015-one-owner-rule-across-protocols.md.
 */
public final class TaskOwners {
  private TaskOwners() {}

  /** Whether {@code caller} (null: anonymous) may see, stream, cancel or answer {@code task}. */
  public static boolean visibleTo(TaskState task, String caller) {
    return Objects.equals(task.owner(), caller);
  }
}

package io.taskmesh.schemas;

import java.util.Set;

/** Gateway task statuses (first spec, "Task status values"). */
public final class TaskStatus {
  public static final String PENDING = "pending";
  public static final String RUNNING = "running";
  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";
  public static final String PAUSED = "paused";
  public static final String CANCELED = "canceled";

  private static final Set<String> FINAL = Set.of(SUCCEEDED, FAILED, CANCELED);

  private TaskStatus() {}

  /** Final for streaming purposes: no update can follow. */
  public static boolean isFinal(String status) {
    return FINAL.contains(status);
  }
}

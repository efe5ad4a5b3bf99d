package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Gateway task statuses (first spec, "Task status values"), each with its wire value. A wire value
 * this version does not know reads as {@link #UNKNOWN} ("status cannot be determined"), so a task
 * record from a newer writer still folds and maps; {@code null} stays {@code null}.
 */
public enum TaskStatus {
  PENDING("pending"),
  RUNNING("running"),
  SUCCEEDED("succeeded"),
  FAILED("failed"),
  PAUSED("paused"),
  CANCELED("canceled"),
  AUTH_REQUIRED("auth_required"),
  UNKNOWN("unknown");

  private final String wire;

  TaskStatus(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static TaskStatus fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (TaskStatus s : values()) {
      if (s.wire.equals(value)) {
        return s;
      }
    }
    return UNKNOWN;
  }

  /** Final for streaming purposes: no update can follow (succeeded, failed, canceled). */
  public boolean isFinal() {
    return this == SUCCEEDED || this == FAILED || this == CANCELED;
  }

  /** The outcome a final report may carry: succeeded or failed. */
  public boolean isOutcome() {
    return this == SUCCEEDED || this == FAILED;
  }

  /** The wire value, so messages and logs read as they did when statuses were strings. */
  @Override
  public String toString() {
    return wire;
  }
}

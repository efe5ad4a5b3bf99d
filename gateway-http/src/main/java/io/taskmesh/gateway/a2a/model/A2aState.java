package io.taskmesh.gateway.a2a.model;

import com.fasterxml.jackson.annotation.JsonValue;
import io.taskmesh.schemas.TaskStatus;

/**
 * A2A 0.3 task states with their wire values, and the mapping from gateway statuses (spec):
 * succeeded -> completed, failed -> failed, canceled -> canceled, paused -> input-required,
 * auth_required -> auth-required; plus pending -> submitted, running -> working, anything else ->
 * unknown. A2A 0.3 writes states in kebab case ({@code input-required}); the spec's {@code
 * input_required} is the same state.
 */
public enum A2aState {
  SUBMITTED("submitted"),
  WORKING("working"),
  COMPLETED("completed"),
  FAILED("failed"),
  CANCELED("canceled"),
  REJECTED("rejected"),
  INPUT_REQUIRED("input-required"),
  AUTH_REQUIRED("auth-required"),
  UNKNOWN("unknown");

  private final String wire;

  A2aState(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @Override
  public String toString() {
    return wire;
  }

  public static A2aState of(TaskStatus status) {
    if (status == null) {
      return UNKNOWN;
    }
    return switch (status) {
      case PENDING -> SUBMITTED;
      case RUNNING -> WORKING;
      case SUCCEEDED -> COMPLETED;
      case FAILED -> FAILED;
      case CANCELED -> CANCELED;
      case PAUSED -> INPUT_REQUIRED;
      case AUTH_REQUIRED -> AUTH_REQUIRED;
      case UNKNOWN -> UNKNOWN;
    };
  }

  /** The state of a wire value; {@link #UNKNOWN} for anything else. */
  public static A2aState fromWire(String wire) {
    for (A2aState s : values()) {
      if (s.wire.equals(wire)) {
        return s;
      }
    }
    return UNKNOWN;
  }

  /** A2A state name -> gateway status (for {@code tasks/list} filters); null when unknown. */
  public static TaskStatus gatewayStatus(String a2aState) {
    return switch (a2aState) {
      case "submitted" -> TaskStatus.PENDING;
      case "working" -> TaskStatus.RUNNING;
      case "completed" -> TaskStatus.SUCCEEDED;
      case "failed" -> TaskStatus.FAILED;
      case "canceled" -> TaskStatus.CANCELED;
      case "input-required", "input_required" -> TaskStatus.PAUSED;
      case "auth-required", "auth_required" -> TaskStatus.AUTH_REQUIRED;
      case "unknown" -> TaskStatus.UNKNOWN;
      default -> null;
    };
  }

  /** After these the task can never change. */
  public boolean isTerminal() {
    return this == COMPLETED || this == FAILED || this == CANCELED || this == REJECTED;
  }

  /** These end a stream without ending the task. */
  public boolean isInterrupted() {
    return this == INPUT_REQUIRED || this == AUTH_REQUIRED;
  }

  /** True when a stream ends at this state (terminal or interrupted). */
  public boolean endsStream() {
    return isTerminal() || isInterrupted();
  }
}

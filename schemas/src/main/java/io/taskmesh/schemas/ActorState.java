package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Optional;

/**
 * Where one actor is with an envelope, as a sidecar reports it (first spec, "Per-actor progress
 * states"), with the weight the progress formulas give it. Reports carry it as a string ({@code
 * ProgressReport.status}), checked when the progress is computed.
 */
public enum ActorState {
  RECEIVED("received", 0.1),
  PROCESSING("processing", 0.5),
  COMPLETED("completed", 1.0);

  private final String wire;
  private final double weight;

  ActorState(String wire, double weight) {
    this.wire = wire;
    this.weight = weight;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  public double weight() {
    return weight;
  }

  public static Optional<ActorState> find(String value) {
    return Arrays.stream(values()).filter(s -> s.wire.equals(value)).findFirst();
  }

  @Override
  public String toString() {
    return wire;
  }
}

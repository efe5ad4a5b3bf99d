package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * {@code status.phase} of an envelope (second spec): pending, processing, retrying, succeeded,
 * failed, paused, canceled. A wire value this version does not know reads as {@link #UNKNOWN}: it
 * is neither a success nor one of the phases x-sink treats as "still running", which is how the
 * sidecar treated an unknown phase string; every actor writes a new phase before it forwards an
 * envelope, so {@code UNKNOWN} is never written on. {@code null} (no phase) stays {@code null}.
 */
public enum EnvelopePhase {
  PENDING("pending"),
  PROCESSING("processing"),
  RETRYING("retrying"),
  SUCCEEDED("succeeded"),
  FAILED("failed"),
  PAUSED("paused"),
  CANCELED("canceled"),
  UNKNOWN("unknown");

  private final String wire;

  EnvelopePhase(String wire) {
    this.wire = wire;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  @JsonCreator
  public static EnvelopePhase fromWire(String value) {
    if (value == null) {
      return null;
    }
    for (EnvelopePhase p : values()) {
      if (p.wire.equals(value)) {
        return p;
      }
    }
    return UNKNOWN;
  }

  /** Phases of an envelope still on its way (it has not ended, failed or been parked). */
  public boolean inFlight() {
    return this == PENDING || this == PROCESSING;
  }

  @Override
  public String toString() {
    return wire;
  }
}

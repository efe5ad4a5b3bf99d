package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Status of a mesh-api envelope, with the spec's order: pending(0) < running(1) < paused(2) <
 * succeeded = failed = canceled(3). Once set, a status is only overwritten by one of higher order;
 * terminal statuses never overwrite each other. Values come from stored JSON and sidecar events, so
 * lookups of a wire value are {@link #find} (empty when unknown) or {@link #of} (throws).
 */
public enum MeshStatus {
  PENDING("pending", 0),
  RUNNING("running", 1),
  PAUSED("paused", 2),
  SUCCEEDED("succeeded", 3),
  FAILED("failed", 3),
  CANCELED("canceled", 3);

  /** Every status, in declaration order (messages list them so). */
  public static final List<MeshStatus> ALL = List.of(values());

  public static final List<MeshStatus> NON_TERMINAL =
      Arrays.stream(values()).filter(s -> !s.isTerminal()).toList();
  private static final int TERMINAL_ORDER = 3;

  private final String wire;
  private final int order;

  MeshStatus(String wire, int order) {
    this.wire = wire;
    this.order = order;
  }

  @JsonValue
  public String wire() {
    return wire;
  }

  public int order() {
    return order;
  }

  public boolean isTerminal() {
    return order == TERMINAL_ORDER;
  }

  public static Optional<MeshStatus> find(String value) {
    return Arrays.stream(values()).filter(s -> s.wire.equals(value)).findFirst();
  }

  /**
   * The status a wire value names.
   *
   * @throws IllegalArgumentException naming the value when it is not a status
   */
  @JsonCreator
  public static MeshStatus of(String value) {
    return find(value)
        .orElseThrow(() -> new IllegalArgumentException("unknown status '" + value + "'"));
  }

  /** What an incoming status does to a stored one. */
  public enum Move {
    ADVANCE,
    REFRESH,
    STALE
  }

  /**
   * This (incoming) status over {@code stored}: a strictly higher order advances; the same
   * non-terminal status refreshes the data (actor, progress) without changing the status; anything
   * else (lower, or terminal over terminal) is stale.
   */
  public Move over(MeshStatus stored) {
    if (order > stored.order) {
      return Move.ADVANCE;
    }
    if (this == stored && !isTerminal()) {
      return Move.REFRESH;
    }
    return Move.STALE;
  }

  @Override
  public String toString() {
    return wire;
  }
}

package io.taskmesh.meshapi;

import java.util.List;
import java.util.Map;

/** Mesh-api status ordering: pending(0) < running(1) < paused(2) < succeeded = failed = canceled(3). */
public final class Statuses {
  public static final String PENDING = "pending";
  public static final String RUNNING = "running";
  public static final String PAUSED = "paused";
  public static final String SUCCEEDED = "succeeded";
  public static final String FAILED = "failed";
  public static final String CANCELED = "canceled";
  public static final List<String> ALL = List.of(PENDING, RUNNING, PAUSED, SUCCEEDED, FAILED, CANCELED);
  public static final List<String> NON_TERMINAL = List.of(PENDING, RUNNING, PAUSED);
  private static final Map<String, Integer> ORDER = Map.of(
      PENDING, 0, RUNNING, 1, PAUSED, 2, SUCCEEDED, 3, FAILED, 3, CANCELED, 3);

  private Statuses() {}

  public static boolean known(String s) {
    return s != null && ORDER.containsKey(s);
  }

  public static int order(String s) {
    Integer o = ORDER.get(s);
    if (o == null) {
      throw new IllegalArgumentException("unknown status '" + s + "'");
    }
    return o;
  }

  public static boolean terminal(String s) {
    return order(s) == 3;
  }

  /** What an incoming status does to a stored one. */
  public enum Move { ADVANCE, REFRESH, STALE }

  /**
   * A strictly higher order advances; the same non-terminal status refreshes the data (actor,
   * progress) without changing the status; anything else (lower, or terminal over terminal) is stale.
   */
  public static Move move(String stored, String incoming) {
    int from = order(stored);
    int to = order(incoming);
    if (to > from) {
      return Move.ADVANCE;
    }
    if (to == from && stored.equals(incoming) && from < 3) {
      return Move.REFRESH;
    }
    return Move.STALE;
  }
}

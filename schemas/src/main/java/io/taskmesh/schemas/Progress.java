package io.taskmesh.schemas;

/** The spec's progress formulas for both body forms of a progress report. */
public final class Progress {
  private Progress() {}

  /** Route form weight: received 0.1, processing 0.5, completed 1.0. */
  public static double routeWeight(String actorState) {
    return ActorState.find(actorState)
        .map(ActorState::weight)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "progress: 'status' must be received, processing or completed, not '"
                        + actorState
                        + "'"));
  }

  /**
   * Route form: (len(prev) + weight) x 100 / total_actors. Index form: (idx x 100 + weight) /
   * total_actors with weights 10/50/100. Capped at 100.
   */
  public static double percent(ProgressReport r) {
    double weight = routeWeight(r.status());
    double value;
    if (r.indexForm()) {
      int total = r.actors().size();
      if (total == 0) {
        throw new IllegalArgumentException("progress: 'actors' must not be empty");
      }
      value = (r.currentActorIdx() * 100.0 + weight * 100.0) / total;
    } else {
      int prev = r.prev() == null ? 0 : r.prev().size();
      int total = prev + 1 + (r.next() == null ? 0 : r.next().size());
      value = (prev + weight) * 100.0 / total;
    }
    return Math.min(100.0, Math.round(value * 100.0) / 100.0);
  }
}

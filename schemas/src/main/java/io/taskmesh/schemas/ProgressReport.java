package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Body of {@code POST /mesh/{id}/progress}: the route form ({@code prev}, {@code curr}, {@code
 * next}) or the index form ({@code actors}, {@code current_actor_idx}).
 */
public record ProgressReport(
    @JsonProperty("prev") List<String> prev,
    @JsonProperty("curr") String curr,
    @JsonProperty("next") List<String> next,
    @JsonProperty("actors") List<String> actors,
    @JsonProperty("current_actor_idx") Integer currentActorIdx,
    @JsonProperty("status") String status,
    @JsonProperty("message") String message) {

  public static ProgressReport routeForm(Route route, ActorState actorState, String message) {
    return new ProgressReport(
        route.prev(), route.curr(), route.next(), null, null, actorState.wire(), message);
  }

  public boolean indexForm() {
    return actors != null && currentActorIdx != null;
  }
}

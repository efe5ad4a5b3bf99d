package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.ArrayList;
import java.util.List;

/** An envelope's route: actors done, the current one, the ones still to run. */
public record Route(
    @JsonProperty("prev") List<String> prev,
    @JsonProperty("curr") String curr,
    @JsonProperty("next") List<String> next) {

  public Route {
    prev = prev == null ? List.of() : List.copyOf(prev);
    curr = curr == null ? "" : curr;
    next = next == null ? List.of() : List.copyOf(next);
  }

  /** The route of a new task: the entrypoint is current, the rest follows. */
  public static Route start(String entrypoint, List<String> rest) {
    return new Route(List.of(), entrypoint, rest);
  }

  public int totalActors() {
    return prev.size() + 1 + next.size();
  }

  public boolean exhausted() {
    return curr.isEmpty();
  }

  /** Every actor of the route in order (prev, curr, next), skipping an empty curr. */
  public List<String> actors() {
    List<String> all = new ArrayList<>(prev);
    if (!curr.isEmpty()) {
      all.add(curr);
    }
    all.addAll(next);
    return all;
  }
}

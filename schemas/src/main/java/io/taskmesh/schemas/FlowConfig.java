package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;

/** One entry of {@code flows} in the flow config (first spec, "FlowConfig"). */
public record FlowConfig(
    @JsonProperty("name") String name,
    @JsonProperty("entrypoint") String entrypoint,
    @JsonProperty("route_next") List<String> routeNext,
    @JsonProperty("description") String description,
    @JsonProperty("timeout") Double timeout,
    @JsonProperty("mcp") JsonNode mcp,
    @JsonProperty("a2a") JsonNode a2a) {

  public FlowConfig {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("flow: 'name' is required");
    }
    if (entrypoint == null || entrypoint.isBlank()) {
      throw new IllegalArgumentException("flow '" + name + "': 'entrypoint' is required");
    }
    routeNext = routeNext == null ? List.of() : List.copyOf(routeNext);
    if (timeout != null && !(timeout > 0)) {
      throw new IllegalArgumentException("flow '" + name + "': 'timeout' must be a positive number of seconds");
    }
    if (Topics.isCrewActor(entrypoint) || routeNext.stream().anyMatch(Topics::isCrewActor)) {
      throw new IllegalArgumentException("flow '" + name + "': x-sink and x-sump must not be listed in routes");
    }
  }

  public boolean isTool() {
    return mcp != null && !mcp.isNull();
  }

  public Route startRoute() {
    return Route.start(entrypoint, routeNext);
  }
}

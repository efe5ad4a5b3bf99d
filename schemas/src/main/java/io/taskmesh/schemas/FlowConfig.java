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
      throw new IllegalArgumentException(
          "flow '" + name + "': 'timeout' must be a positive number of seconds");
    }
    if (Topics.isCrewActor(entrypoint) || routeNext.stream().anyMatch(Topics::isCrewActor)) {
      throw new IllegalArgumentException(
          "flow '" + name + "': x-sink and x-sump must not be listed in routes");
    }
    JsonNode isDefault = a2a == null || !a2a.isObject() ? null : a2a.get("default");
    if (isDefault != null && !isDefault.isNull() && !isDefault.isBoolean()) {
      throw new IllegalArgumentException(
          "flow '" + name + "': 'a2a.default' must be true or false");
    }
  }

  /** Whether the flow is an A2A skill (it has an {@code a2a} section). */
  public boolean isA2aSkill() {
    return a2a != null && !a2a.isNull() && !a2a.isMissingNode();
  }

  /**
   * Whether the flow is the A2A skill that messages naming no skill go to ({@code a2a: {default:
   * true}}); at most one flow of a config is (checked where the config is loaded).
   */
  public boolean isDefaultA2aSkill() {
    return isA2aSkill() && a2a.isObject() && a2a.path("default").asBoolean(false);
  }

  public boolean isTool() {
    return mcp != null && !mcp.isNull();
  }

  public Route startRoute() {
    return Route.start(entrypoint, routeNext);
  }
}

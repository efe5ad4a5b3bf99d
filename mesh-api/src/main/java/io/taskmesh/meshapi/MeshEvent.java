package io.taskmesh.meshapi;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * One record of the fan-out topic: an SSE event for envelope {@code id}. {@code type} is
 * {@code status} (data {@code {status, actor, progress, ...}}) or {@code fly} (data = the FLY object).
 */
public record MeshEvent(
    @JsonProperty("id") String id,
    @JsonProperty("type") String type,
    @JsonProperty("data") JsonNode data) {

  public static final String STATUS = "status";
  public static final String FLY = "fly";

  public boolean terminalStatus() {
    return STATUS.equals(type) && Statuses.known(data.path("status").asText(null))
        && Statuses.terminal(data.path("status").asText());
  }
}

package io.taskmesh.meshapi;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.MeshStatus;

/**
 * One record of the fan-out topic: an SSE event for envelope {@code id}. {@code type} is {@code
 * status} (data {@code {status, actor, progress, ...}}) or {@code fly} (data = the FLY object).
 */
public record MeshEvent(
    @JsonProperty("id") String id,
    @JsonProperty("type") String type,
    @JsonProperty("data") JsonNode data) {

  public static final String STATUS = "status";
  public static final String FLY = "fly";

  public boolean terminalStatus() {
    return STATUS.equals(type)
        && MeshStatus.find(data.path("status").asText(null))
            .filter(MeshStatus::isTerminal)
            .isPresent();
  }
}

package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/** Body of {@code POST /mesh/{id}/final}, sent by x-sink (success) or x-sump (failure). */
public record FinalReport(
    @JsonProperty("id") String id,
    @JsonProperty("status") String status,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("current_actor_name") String currentActorName,
    @JsonProperty("metadata") Map<String, Object> metadata) {}

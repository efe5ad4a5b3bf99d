package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * Body of {@code POST /mesh/{id}/final}, sent by x-sink (success) or x-sump (failure), and by
 * x-pause with status paused.
 */
public record FinalReport(
    @JsonProperty("id") String id,
    @JsonProperty("status") TaskStatus status,
    @JsonProperty("result") JsonNode result,
    @JsonProperty("error") String error,
    @JsonProperty("current_actor_name") String currentActorName,
    @JsonProperty("metadata") Map<String, Object> metadata) {

  public static FinalReport succeeded(
      String id, JsonNode result, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.SUCCEEDED, result, null, actor, metadata);
  }

  public static FinalReport failed(
      String id, String error, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.FAILED, null, error, actor, metadata);
  }

  public static FinalReport paused(String id, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.PAUSED, null, null, actor, metadata);
  }
}

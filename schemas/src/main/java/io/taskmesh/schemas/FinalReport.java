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
    @JsonProperty("metadata") Map<String, Object> metadata,
    @JsonProperty("error_details") ErrorDetails errorDetails) {

  public FinalReport(
      String id,
      TaskStatus status,
      JsonNode result,
      String error,
      String currentActorName,
      Map<String, Object> metadata) {
    this(id, status, result, error, currentActorName, metadata, null);
  }

  public static FinalReport succeeded(
      String id, JsonNode result, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.SUCCEEDED, result, null, actor, metadata);
  }

  public static FinalReport failed(
      String id, String error, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.FAILED, null, error, actor, metadata);
  }

  /** A failure with its details: the failing actor, exception type, reason, traceback. */
  public static FinalReport failed(
      String id, String error, String actor, Map<String, Object> metadata, ErrorDetails details) {
    return new FinalReport(id, TaskStatus.FAILED, null, error, actor, metadata, details);
  }

  /**
   * What a paused task asks for: the {@code pause} metadata x-pause reports (the handler's {@code
   * x-svc-pause} header) when it is a question rather than a plain flag ("true", "1", "yes"); null
   * otherwise.
   */
  public String question() {
    Object pause = metadata == null ? null : metadata.get("pause");
    if (!(pause instanceof String text) || text.isBlank()) {
      return null;
    }
    String flag = text.trim().toLowerCase(java.util.Locale.ROOT);
    return flag.equals("true") || flag.equals("1") || flag.equals("yes") ? null : text.trim();
  }

  /**
   * What a paused task asks its caller's client for by name: the {@code input_requests} metadata
   * x-pause reports (the handler's {@link InputRequests#HEADER}, checked); null when none.
   */
  public JsonNode inputRequests() {
    Object requests = metadata == null ? null : metadata.get("input_requests");
    if (requests == null) {
      return null;
    }
    InputRequests.Read read = InputRequests.read(requests);
    return read.ok() ? read.requests() : null;
  }

  public static FinalReport paused(String id, String actor, Map<String, Object> metadata) {
    return new FinalReport(id, TaskStatus.PAUSED, null, null, actor, metadata);
  }
}

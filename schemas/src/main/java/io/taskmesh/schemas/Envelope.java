package io.taskmesh.schemas;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** The message that travels from actor to actor (second spec, "Envelope"). */
public record Envelope(
    @JsonProperty("id") String id,
    @JsonProperty("parent_id") String parentId,
    @JsonProperty("route") Route route,
    @JsonProperty("status") EnvelopeStatus status,
    @JsonProperty("payload") JsonNode payload,
    @JsonProperty("headers") Map<String, Object> headers) {

  /** Header carrying the URL that progress and final reports go to. */
  public static final String GATEWAY_URL_HEADER = "x-svc-gateway-url";

  /**
   * Which report API {@code x-svc-gateway-url} speaks: absent = the gateway's legacy mesh routes
   * ({@code /mesh/{id}/progress|final|fly}); {@code events} = mesh-api's {@code /mesh/{id}/events}.
   */
  public static final String GATEWAY_PROTOCOL_HEADER = "x-svc-gateway-protocol";

  public static final String EVENTS_PROTOCOL = "events";

  /**
   * Header naming the task event log topic of the gateway that started the task: a sidecar that can
   * write to it appends its progress events there (inside its routing transaction) instead of
   * posting them to {@code x-svc-gateway-url}.
   */
  public static final String TASK_EVENTS_HEADER = "x-svc-task-events";

  /** Header set by the x-pause actor to pause a task. */
  public static final String PAUSE_HEADER = "x-svc-pause";

  public Envelope {
    if (id == null || id.isBlank()) {
      throw new IllegalArgumentException("envelope: field 'id' is required");
    }
    if (route == null) {
      throw new IllegalArgumentException("envelope: field 'route' is required");
    }
    if (payload == null) {
      payload = NullNode.getInstance();
    }
    headers = headers == null ? new LinkedHashMap<>() : new LinkedHashMap<>(headers);
  }

  public Envelope withRoute(Route newRoute) {
    return new Envelope(id, parentId, newRoute, status, payload, headers);
  }

  public Envelope withStatus(EnvelopeStatus newStatus) {
    return new Envelope(id, parentId, route, newStatus, payload, headers);
  }

  public String header(String name) {
    Object v = headers.get(name);
    return v == null ? null : v.toString();
  }
}

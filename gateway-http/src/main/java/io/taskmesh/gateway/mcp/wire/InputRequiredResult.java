package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The 2026-07-28 answer of a call that waits for the client's input (multi round-trip requests):
 * the input requests keyed by name and the opaque {@code requestState} the client sends back.
 */
public record InputRequiredResult(
    String resultType, Map<String, JsonNode> inputRequests, String requestState) {
  public static InputRequiredResult of(Map<String, JsonNode> inputRequests, String requestState) {
    return new InputRequiredResult("input_required", inputRequests, requestState);
  }
}

package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The params of {@code notifications/progress}. Ours rather than the SDK's, whose token is a string
 * and whose numbers are doubles: the client's token (a string or a number) goes back as it came,
 * and a whole percent stays a whole number.
 *
 * @param message null: absent
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ProgressParams(JsonNode progressToken, Number progress, int total, String message) {
  /** Progress in percent, out of 100. */
  public static ProgressParams percent(JsonNode token, Number percent, String message) {
    return new ProgressParams(token, percent, 100, message);
  }
}

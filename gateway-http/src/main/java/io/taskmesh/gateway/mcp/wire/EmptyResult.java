package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/**
 * The result of a request that has nothing to say but that it was done ({@code ping}, {@code
 * resources/subscribe}, {@code tasks/update}): an empty object, since its {@code _meta} is never
 * set by us.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EmptyResult(@JsonProperty("_meta") Map<String, Object> meta) {
  public static final EmptyResult INSTANCE = new EmptyResult(null);
}

package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The sessionless era's {@code server/discover} answer: every revision spoken, this one's offer,
 * and the server's identity under {@code _meta} (the revision has no {@code serverInfo} member).
 */
public record DiscoverResult(
    List<String> supportedVersions,
    ServerCapabilities capabilities,
    String instructions,
    @JsonProperty("_meta") Map<String, Object> meta) {

  public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
}

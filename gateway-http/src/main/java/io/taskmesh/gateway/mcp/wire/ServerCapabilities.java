package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities.ResourceCapabilities;
import io.modelcontextprotocol.spec.McpSchema.ServerCapabilities.ToolCapabilities;
import java.util.Map;

/**
 * What the server offers, per revision. Ours because the SDK's {@code ServerCapabilities} has no
 * {@code tasks} (2025-11-25) nor {@code extensions} (2026-07-28) member; its tool and resource
 * capabilities fit the wire and are used as they are. An offered capability without settings is an
 * empty object, absent when not offered.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ServerCapabilities(
    ToolCapabilities tools,
    Map<String, Object> logging,
    ResourceCapabilities resources,
    Map<String, Object> prompts,
    Map<String, Object> tasks,
    Map<String, Object> extensions) {

  /**
   * The session era's: tools whose list changes, logging, subscribable resources whose list does
   * not change, and tasks that can be listed, cancelled and made of {@code tools/call}.
   */
  public static ServerCapabilities sessionEra() {
    Map<String, Object> tasks =
        Map.of(
            "list", Map.of(),
            "cancel", Map.of(),
            "requests", Map.of("tools", Map.of("call", Map.of())));
    return new ServerCapabilities(
        new ToolCapabilities(true),
        Map.of(),
        new ResourceCapabilities(true, false),
        null,
        tasks,
        null);
  }

  /** The sessionless era's: the list changes are heard on subscriptions/listen; the extension. */
  public static ServerCapabilities sessionless(String extension) {
    return new ServerCapabilities(
        new ToolCapabilities(true),
        null,
        new ResourceCapabilities(true, null),
        Map.of(),
        null,
        Map.of(extension, Map.of()));
  }
}

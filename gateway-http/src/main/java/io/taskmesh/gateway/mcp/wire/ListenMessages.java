package io.taskmesh.gateway.mcp.wire;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * What a 2026-07-28 {@code subscriptions/listen} stream says besides the notifications it carries:
 * the acknowledgement that opens it and the result that closes it. Ours: the SDK has no listen.
 * Every message on the stream carries the subscription id under {@code _meta}.
 */
public final class ListenMessages {
  /** The {@code _meta} key naming the listen a message belongs to: the listen's request id. */
  public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

  private ListenMessages() {}

  /** A {@code _meta} object holding only the subscription id. */
  public static Map<String, Object> meta(Object subscriptionId) {
    return Map.of(SUBSCRIPTION_ID, subscriptionId);
  }

  /**
   * What of the client's filter the listen honors: each member only when the filter had it.
   *
   * @param toolsListChanged true, or null (absent) when not asked for
   * @param taskIds the caller's own tasks among those asked for; null when none were asked for
   * @param resourceSubscriptions the caller's own task resources among those asked for; null when
   *     none were asked for
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Honored(
      Boolean toolsListChanged, List<String> taskIds, List<String> resourceSubscriptions) {}

  /** The params of {@code notifications/subscriptions/acknowledged}. */
  public record Acknowledged(
      Honored notifications, @JsonProperty("_meta") Map<String, Object> meta) {}

  /** The params of {@code notifications/tools/list_changed} on a listen: only its stamp. */
  public record Stamp(@JsonProperty("_meta") Map<String, Object> meta) {}

  /** The listen's result, its graceful end: complete, and which listen it ends. */
  public record Finished(String resultType, @JsonProperty("_meta") Map<String, Object> meta) {
    public static Finished of(Object subscriptionId) {
      return new Finished("complete", ListenMessages.meta(subscriptionId));
    }
  }
}

package io.taskmesh.gateway.follow;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.OptionalInt;

/**
 * The opaque token for the next page of a task list (A2A {@code pageToken}, MCP {@code cursor}):
 * the offset of that page. It is not signed: a forged offset only pages through the caller's own
 * tasks. What a missing token means and how a bad one is refused is each protocol's own.
 */
public final class PageToken {
  private static final String PREFIX = "offset:";

  private PageToken() {}

  public static String encode(int offset) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + offset).getBytes(StandardCharsets.UTF_8));
  }

  /** The offset {@code token} stands for; empty for a token this server did not issue. */
  public static OptionalInt decode(String token) {
    try {
      String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (raw.startsWith(PREFIX)) {
        int n = Integer.parseInt(raw.substring(PREFIX.length()));
        if (n >= 0) {
          return OptionalInt.of(n);
        }
      }
    } catch (IllegalArgumentException e) {
      // not Base64, or not a number: not ours
    }
    return OptionalInt.empty();
  }
}

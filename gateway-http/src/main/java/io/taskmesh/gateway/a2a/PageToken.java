package io.taskmesh.gateway.a2a;

import io.taskmesh.gateway.a2a.model.A2aException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The {@code pageToken} of {@code tasks/list}: an opaque token for the offset of the next page. It
 * is not signed: a forged offset only pages through the caller's own tasks.
 */
final class PageToken {
  private static final String PREFIX = "offset:";

  private PageToken() {}

  static String encode(int offset) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + offset).getBytes(StandardCharsets.UTF_8));
  }

  /** The offset of a token; 0 for none; InvalidParams for a token this server did not issue. */
  static int decode(String token) {
    if (token == null || token.isEmpty()) {
      return 0;
    }
    try {
      String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (raw.startsWith(PREFIX)) {
        int n = Integer.parseInt(raw.substring(PREFIX.length()));
        if (n >= 0) {
          return n;
        }
      }
    } catch (IllegalArgumentException e) {
      // falls through to the error below
    }
    throw A2aException.params("Invalid params: 'pageToken' is not a token this server issued");
  }
}

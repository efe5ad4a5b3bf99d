package io.taskmesh.gateway.a2a.push;

import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.http.SsrfGuard;
import java.net.URI;
import java.util.Locale;

/**
 * Where a push may go: {@code http}/{@code https} URLs without user info whose host resolves to
 * public addresses, unless private targets are allowed ({@code SVC_A2A_PUSH_ALLOW_PRIVATE=true}).
 * Checked when a config is set and again before each POST, since a DNS answer may change.
 */
final class PushTarget {
  private PushTarget() {}

  /** Throws an A2A invalid-params error naming what is wrong with {@code uri}. */
  static void check(URI uri, boolean allowPrivate) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must be http or https, not '"
              + scheme
              + "'");
    }
    String host = uri.getHost();
    if (host == null || host.isBlank()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' has no host");
    }
    if (uri.getUserInfo() != null) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must not carry user info");
    }
    if (allowPrivate) {
      return;
    }
    try {
      SsrfGuard.requirePublic(host, false);
    } catch (SsrfGuard.Refused e) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must target a public address: "
              + e.getMessage());
    }
  }
}

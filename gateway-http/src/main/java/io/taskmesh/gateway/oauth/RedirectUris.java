package io.taskmesh.gateway.oauth;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

/**
 * Redirect URI rules: a client may register only https URLs or http URLs on a loopback host (the
 * spec: localhost or HTTPS), never with a fragment; an authorization request must name one of them
 * byte for byte (OAuth 2.1 exact matching).
 */
public final class RedirectUris {
  static final int MAX_LENGTH = 2000;

  private RedirectUris() {}

  /** Why {@code uri} cannot be registered, or null when it can. */
  public static String problem(String uri) {
    if (uri == null || uri.isBlank()) {
      return "redirect URI is empty";
    }
    if (uri.length() > MAX_LENGTH) {
      return "redirect URI is longer than " + MAX_LENGTH + " characters";
    }
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      return "redirect URI is not a valid URI: " + uri;
    }
    if (!u.isAbsolute() || u.getHost() == null) {
      return "redirect URI must be absolute with a host: " + uri;
    }
    if (u.getRawFragment() != null) {
      return "redirect URI must not contain a fragment: " + uri;
    }
    if (u.getRawUserInfo() != null) {
      return "redirect URI must not contain user info: " + uri;
    }
    String scheme = u.getScheme().toLowerCase(Locale.ROOT);
    if (scheme.equals("https")) {
      return null;
    }
    if (scheme.equals("http") && isLoopbackHost(u.getHost())) {
      return null;
    }
    return "redirect URI must be https, or http on localhost / 127.0.0.1 / [::1]: " + uri;
  }

  /** Exact string match against the registered list (no normalisation, no prefix matching). */
  public static boolean registered(List<String> registered, String uri) {
    return uri != null && registered.contains(uri);
  }

  static boolean isLoopbackHost(String host) {
    if (host == null) {
      return false;
    }
    String h = host.toLowerCase(Locale.ROOT);
    return h.equals("localhost") || h.equals("127.0.0.1") || h.equals("[::1]") || h.equals("::1");
  }
}

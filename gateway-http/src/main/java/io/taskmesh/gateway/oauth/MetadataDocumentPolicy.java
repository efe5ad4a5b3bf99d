package io.taskmesh.gateway.oauth;

import io.taskmesh.servicekit.ConfigException;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * Which client ID metadata documents this server accepts at all, before any is fetched.
 *
 * <p>A metadata-document client never registers, so without this a registration token ({@code
 * SVC_MCP_OAUTH_REGISTRATION_TOKEN}) would only keep out the clients that ask politely. Rule: with
 * an allow-list ({@code SVC_MCP_OAUTH_CIMD_ALLOWED}, comma-separated URL prefixes, each ending in
 * {@code /}) only a {@code client_id} that starts with one of them is accepted; without one,
 * metadata documents are open to any public https URL when registration is open, and off when a
 * registration token is set. Prefixes must end in {@code /} so {@code https://a.example/} cannot be
 * matched by {@code https://a.example.evil.com/}.
 */
record MetadataDocumentPolicy(boolean enabled, List<String> allowedPrefixes) {
  static final String VARIABLE = "SVC_MCP_OAUTH_CIMD_ALLOWED";

  static MetadataDocumentPolicy of(String registrationToken, List<String> allowedPrefixes) {
    List<String> prefixes = List.copyOf(allowedPrefixes);
    prefixes.forEach(MetadataDocumentPolicy::checkPrefix);
    return new MetadataDocumentPolicy(registrationToken == null || !prefixes.isEmpty(), prefixes);
  }

  /** Throws {@code invalid_client} when {@code clientId} is not an accepted document URL. */
  void check(String clientId) {
    if (!enabled) {
      throw OAuthError.invalidClient(
          "client ID metadata documents are off: this server requires registration");
    }
    if (allowedPrefixes.isEmpty()) {
      return;
    }
    String lower = clientId.toLowerCase(Locale.ROOT);
    if (lower.contains("%2e")
        || lower.contains("%2f")
        || lower.contains("/./")
        || lower.contains("/../")) {
      throw OAuthError.invalidClient("client_id must not hide dot segments or slashes");
    }
    if (allowedPrefixes.stream().noneMatch(clientId::startsWith)) {
      throw OAuthError.invalidClient(
          "client_id is not under a metadata document URL this server accepts");
    }
  }

  private static void checkPrefix(String prefix) {
    URI u;
    try {
      u = URI.create(prefix);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(VARIABLE, "'" + prefix + "' is not a URL");
    }
    boolean https = "https".equals(u.getScheme());
    boolean loopbackHttp = "http".equals(u.getScheme()) && RedirectUris.isLoopbackHost(u.getHost());
    if (!(https || loopbackHttp)
        || u.getHost() == null
        || !prefix.endsWith("/")
        || u.getRawUserInfo() != null
        || u.getRawQuery() != null
        || u.getRawFragment() != null) {
      throw new ConfigException(
          VARIABLE,
          "'" + prefix + "' must be an https URL prefix ending in / (http only on loopback)");
    }
  }
}

package io.taskmesh.gateway.a2a;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Map;

/**
 * The A2A part of the gateway's environment, validated eagerly; every error names its variable.
 *
 * @param apiKey {@code SVC_A2A_API_KEY}: static key for {@code X-API-Key}; empty disables it
 * @param jwksUrl {@code SVC_A2A_JWT_JWKS_URL}: key set of the JWT issuer; null disables JWT
 * @param issuer {@code SVC_A2A_JWT_ISSUER}: expected {@code iss}; required with the JWKS URL
 * @param audience {@code SVC_A2A_JWT_AUDIENCE}: expected {@code aud}; required with the JWKS URL
 * @param publicUrl {@code SVC_A2A_PUBLIC_URL}: absolute base URL clients reach the gateway at;
 *     null = derived from each request's scheme and Host header
 * @param agentName {@code SVC_A2A_AGENT_NAME} (default {@code taskmesh})
 * @param agentDescription {@code SVC_A2A_AGENT_DESCRIPTION}
 * @param agentVersion {@code SVC_A2A_AGENT_VERSION} (default {@code 0.1.0})
 * @param pushAllowPrivate {@code SVC_A2A_PUSH_ALLOW_PRIVATE}: allow push URLs on loopback,
 *     private, link-local and other non-public addresses (default false)
 */
public record A2aSettings(
    String apiKey,
    URI jwksUrl,
    String issuer,
    String audience,
    URI publicUrl,
    String agentName,
    String agentDescription,
    String agentVersion,
    boolean pushAllowPrivate) {

  public static A2aSettings defaults() {
    return fromEnv(Map.of());
  }

  public static A2aSettings fromEnv(Map<String, String> env) {
    String apiKey = env.getOrDefault("SVC_A2A_API_KEY", "");
    URI jwks = httpUrl(env, "SVC_A2A_JWT_JWKS_URL");
    String issuer = blankToNull(env.get("SVC_A2A_JWT_ISSUER"));
    String audience = blankToNull(env.get("SVC_A2A_JWT_AUDIENCE"));
    if (jwks != null && issuer == null) {
      throw new IllegalArgumentException("SVC_A2A_JWT_ISSUER is required when SVC_A2A_JWT_JWKS_URL is set");
    }
    if (jwks != null && audience == null) {
      throw new IllegalArgumentException("SVC_A2A_JWT_AUDIENCE is required when SVC_A2A_JWT_JWKS_URL is set");
    }
    if (jwks == null && (issuer != null || audience != null)) {
      throw new IllegalArgumentException(
          "SVC_A2A_JWT_JWKS_URL is required when SVC_A2A_JWT_ISSUER or SVC_A2A_JWT_AUDIENCE is set");
    }
    URI publicUrl = httpUrl(env, "SVC_A2A_PUBLIC_URL");
    String allow = env.getOrDefault("SVC_A2A_PUSH_ALLOW_PRIVATE", "false").trim().toLowerCase(Locale.ROOT);
    if (!allow.equals("true") && !allow.equals("false") && !allow.isEmpty()) {
      throw new IllegalArgumentException("SVC_A2A_PUSH_ALLOW_PRIVATE must be true or false, not '" + allow + "'");
    }
    return new A2aSettings(apiKey, jwks, issuer, audience, publicUrl,
        env.getOrDefault("SVC_A2A_AGENT_NAME", "taskmesh").trim(),
        env.getOrDefault("SVC_A2A_AGENT_DESCRIPTION", "taskmesh flows exposed as A2A skills").trim(),
        env.getOrDefault("SVC_A2A_AGENT_VERSION", "0.1.0").trim(),
        allow.equals("true"));
  }

  public boolean apiKeyEnabled() {
    return apiKey != null && !apiKey.isEmpty();
  }

  public boolean jwtEnabled() {
    return jwksUrl != null;
  }

  /** Auth is on when either mechanism is configured; otherwise every request passes. */
  public boolean authEnabled() {
    return apiKeyEnabled() || jwtEnabled();
  }

  private static URI httpUrl(Map<String, String> env, String name) {
    String v = blankToNull(env.get(name));
    if (v == null) {
      return null;
    }
    try {
      URI uri = new URI(v);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException(name + " must be an absolute http(s) URL, not '" + v + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException(name + " is not a valid URL: '" + v + "'");
    }
  }

  private static String blankToNull(String v) {
    return v == null || v.isBlank() ? null : v.trim();
  }
}

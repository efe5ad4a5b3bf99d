package io.taskmesh.gateway.a2a.model;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
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
 * @param publicUrl {@code SVC_A2A_PUBLIC_URL}: absolute base URL clients reach the gateway at; null
 *     = derived from each request's scheme and Host header
 * @param agentName {@code SVC_A2A_AGENT_NAME} (default {@code taskmesh})
 * @param agentDescription {@code SVC_A2A_AGENT_DESCRIPTION}
 * @param agentVersion {@code SVC_A2A_AGENT_VERSION} (default {@code 0.1.0})
 * @param pushAllowPrivate {@code SVC_A2A_PUSH_ALLOW_PRIVATE}: allow push URLs on loopback, private,
 *     link-local and other non-public addresses (default false)
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

  public static A2aSettings fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    String apiKey = env.string("SVC_A2A_API_KEY", "");
    URI jwks = httpUrl(env, "SVC_A2A_JWT_JWKS_URL");
    String issuer = env.optional("SVC_A2A_JWT_ISSUER");
    String audience = env.optional("SVC_A2A_JWT_AUDIENCE");
    if (jwks != null && issuer == null) {
      throw new ConfigException("SVC_A2A_JWT_ISSUER", "required when SVC_A2A_JWT_JWKS_URL is set");
    }
    if (jwks != null && audience == null) {
      throw new ConfigException(
          "SVC_A2A_JWT_AUDIENCE", "required when SVC_A2A_JWT_JWKS_URL is set");
    }
    if (jwks == null && (issuer != null || audience != null)) {
      throw new ConfigException(
          "SVC_A2A_JWT_JWKS_URL",
          "required when SVC_A2A_JWT_ISSUER or SVC_A2A_JWT_AUDIENCE is set");
    }
    URI publicUrl = httpUrl(env, "SVC_A2A_PUBLIC_URL");
    return new A2aSettings(
        apiKey,
        jwks,
        issuer,
        audience,
        publicUrl,
        env.string("SVC_A2A_AGENT_NAME", "taskmesh"),
        env.string("SVC_A2A_AGENT_DESCRIPTION", "taskmesh flows exposed as A2A skills"),
        env.string("SVC_A2A_AGENT_VERSION", "0.1.0"),
        strictBool(env, "SVC_A2A_PUSH_ALLOW_PRIVATE"));
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

  private static URI httpUrl(Env env, String name) {
    String v = env.optional(name);
    if (v == null) {
      return null;
    }
    try {
      URI uri = new URI(v);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new ConfigException(name, "must be an absolute http(s) URL, not '" + v + "'");
      }
      return uri;
    } catch (URISyntaxException e) {
      throw new ConfigException(name, "not a valid URL: '" + v + "'");
    }
  }

  /** Only {@code true} or {@code false} (opening private targets is not a yes/1 kind of switch). */
  private static boolean strictBool(Env env, String name) {
    String v = env.string(name, "false").toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false") && !v.isEmpty()) {
      throw new ConfigException(name, "must be true or false, not '" + v + "'");
    }
    return v.equals("true");
  }
}

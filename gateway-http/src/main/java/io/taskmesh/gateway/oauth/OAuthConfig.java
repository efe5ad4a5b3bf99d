package io.taskmesh.gateway.oauth;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The gateway's OAuth 2.1 authorization server settings, read and validated eagerly: when OAuth is
 * asked for, any missing or unsafe setting stops the start naming its variable, so no configuration
 * ends in an open MCP surface.
 *
 * <p>All environment parsing of this package happens in {@link #fromEnv}, through the shared {@link
 * Env} reader: every refusal is a {@link ConfigException} naming its variable.
 *
 * @param issuer the issuer URL without a trailing slash; also the protected resource (the gateway
 *     is both)
 * @param jdbcUrl the database for clients, codes and tokens ({@code SVC_DATABASE_URL} as JDBC)
 * @param allowLoopbackMetadata test-only ({@code SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK}, default off):
 *     lets a client ID metadata document live on a loopback address over http; never set it in a
 *     deployment
 * @param metadataDocumentsAllowed {@code SVC_MCP_OAUTH_CIMD_ALLOWED}: URL prefixes of the client ID
 *     metadata documents accepted; empty = any, or none when a registration token is set
 * @param clock time source of codes and tokens (tests move it forward)
 */
// the secret is only handed to the signer, never compared or used as a key
@SuppressWarnings("ArrayRecordComponent")
public record OAuthConfig(
    boolean enabled,
    String issuer,
    byte[] secret,
    Duration tokenTtl,
    String registrationToken,
    String jdbcUrl,
    boolean allowLoopbackMetadata,
    List<String> metadataDocumentsAllowed,
    Clock clock) {

  /** HS256 needs a key of at least 256 bits (RFC 7518 section 3.2). */
  public static final int MIN_SECRET_BYTES = 32;

  static final Duration CODE_TTL = Duration.ofMinutes(5);

  /**
   * Not in the spec: refresh tokens live 30 days from their issue, each rotation starts a new one.
   */
  static final Duration REFRESH_TTL = Duration.ofDays(30);

  public static OAuthConfig disabled() {
    return new OAuthConfig(
        false, null, null, Duration.ofHours(1), null, null, false, List.of(), Clock.systemUTC());
  }

  /**
   * Reads the OAuth settings from the environment.
   *
   * @param toJdbc turns {@code SVC_DATABASE_URL} into a JDBC URL (the gateway's own DSN rules)
   * @throws ConfigException naming the variable when OAuth is enabled and a setting is missing or
   *     unsafe
   */
  public static OAuthConfig fromEnv(Map<String, String> vars, UnaryOperator<String> toJdbc) {
    Env env = Env.of(vars);
    if (!env.bool("SVC_MCP_OAUTH_ENABLED", false)) {
      return disabled();
    }
    if (env.optional("SVC_MCP_API_KEY") != null) {
      throw new ConfigException(
          "SVC_MCP_API_KEY",
          "must be empty when SVC_MCP_OAUTH_ENABLED=true:"
              + " the static key and OAuth are mutually exclusive");
    }
    String issuer =
        issuer(required(env, "SVC_MCP_OAUTH_ISSUER", "the URL clients reach this gateway at"));
    byte[] key =
        required(env, "SVC_MCP_OAUTH_SECRET", "the HS256 signing key")
            .getBytes(StandardCharsets.UTF_8);
    if (key.length < MIN_SECRET_BYTES) {
      throw new ConfigException(
          "SVC_MCP_OAUTH_SECRET",
          "must be at least " + MIN_SECRET_BYTES + " bytes (HS256 key), not " + key.length);
    }
    String db = required(env, "SVC_DATABASE_URL", "OAuth clients and tokens are stored there");
    int ttlSeconds = env.integer("SVC_MCP_OAUTH_TOKEN_TTL", 3600, 1, 86_400);
    String registrationToken = env.optional("SVC_MCP_OAUTH_REGISTRATION_TOKEN");
    List<String> allowed = env.list(MetadataDocumentPolicy.VARIABLE, null);
    MetadataDocumentPolicy.of(registrationToken, allowed); // refuses a bad prefix at start
    return new OAuthConfig(
        true,
        issuer,
        key,
        Duration.ofSeconds(ttlSeconds),
        registrationToken,
        toJdbc.apply(db),
        env.bool("SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK", false),
        allowed,
        Clock.systemUTC());
  }

  public OAuthConfig withClock(Clock c) {
    return new OAuthConfig(
        enabled,
        issuer,
        secret,
        tokenTtl,
        registrationToken,
        jdbcUrl,
        allowLoopbackMetadata,
        metadataDocumentsAllowed,
        c);
  }

  /**
   * The paths, under the issuer, of the protected resources this gateway is (RFC 9728 path-based
   * discovery): the gateway itself and its two MCP endpoints. A token's audience must be one of
   * them exactly.
   */
  public static final List<String> RESOURCE_PATHS = List.of("", "/mcp", "/mcp/sse");

  /** The protected resource this gateway is: its MCP routes all sit under the issuer URL. */
  public String resource() {
    return issuer;
  }

  /** Which client ID metadata documents are accepted: see {@link MetadataDocumentPolicy}. */
  MetadataDocumentPolicy metadataDocumentPolicy() {
    return MetadataDocumentPolicy.of(registrationToken, metadataDocumentsAllowed);
  }

  /** Every resource URL a token may name as its audience (RFC 8707): exact strings, no prefixes. */
  public List<String> resources() {
    return RESOURCE_PATHS.stream().map(p -> issuer + p).toList();
  }

  public String protectedResourceMetadataUrl() {
    return issuer + "/.well-known/oauth-protected-resource";
  }

  @Override
  public String toString() {
    return "OAuthConfig[enabled="
        + enabled
        + ", issuer="
        + issuer
        + ", secret="
        + (secret == null ? "unset" : "***")
        + ", tokenTtl="
        + tokenTtl
        + ", registrationToken="
        + (registrationToken == null ? "unset" : "***")
        + ", allowLoopbackMetadata="
        + allowLoopbackMetadata
        + "]";
  }

  private static String required(Env env, String name, String why) {
    String v = env.optional(name);
    if (v == null) {
      throw new ConfigException(name, "required when SVC_MCP_OAUTH_ENABLED=true (" + why + ")");
    }
    return v;
  }

  /** An absolute http(s) URL without query or fragment; plain http only on a loopback host. */
  private static String issuer(String v) {
    String s = v;
    while (s.endsWith("/")) {
      s = s.substring(0, s.length() - 1);
    }
    try {
      URI u = new URI(s);
      boolean https = "https".equals(u.getScheme());
      boolean loopbackHttp =
          "http".equals(u.getScheme()) && RedirectUris.isLoopbackHost(u.getHost());
      if (u.getHost() == null
          || !(https || loopbackHttp)
          || u.getRawQuery() != null
          || u.getRawFragment() != null
          || u.getRawUserInfo() != null) {
        throw new ConfigException(
            "SVC_MCP_OAUTH_ISSUER",
            "must be an https URL (http only on localhost)"
                + " without query or fragment, not '"
                + v
                + "'");
      }
      return s;
    } catch (URISyntaxException e) {
      throw new ConfigException("SVC_MCP_OAUTH_ISSUER", "is not a valid URL: '" + v + "'");
    }
  }
}

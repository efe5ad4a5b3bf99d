package io.taskmesh.gateway.oauth;

import io.taskmesh.servicekit.StartupRetry;
import java.time.Duration;
import java.util.Optional;

/**
 * The running authorization server of one gateway: its store (opened, schema created), token
 * service and metadata document fetcher. {@link #bearer} is what the MCP routes call to accept an
 * OAuth access token.
 */
public final class OAuth implements AutoCloseable {
  private final OAuthConfig config;
  private final OAuthStore store;
  private final AuthorizationServer server;

  private OAuth(OAuthConfig config, OAuthStore store) {
    this.config = config;
    this.store = store;
    this.server =
        new AuthorizationServer(
            config,
            store,
            TokenService.of(config),
            new ClientMetadataDocuments(config.allowLoopbackMetadata(), config.clock()));
  }

  /** Opens the store and creates its schema; fails when the database is unreachable. */
  public static OAuth start(OAuthConfig config) {
    return start(config, Duration.ZERO);
  }

  /**
   * As above, waiting up to {@code retryFor} ({@code SVC_STARTUP_RETRY_TIMEOUT}) for a database
   * that does not accept connections yet.
   *
   * @throws StartupRetry.GaveUp with a one-line message once it gives up
   */
  public static OAuth start(OAuthConfig config, Duration retryFor) {
    if (!config.enabled()) {
      throw new IllegalArgumentException("OAuth is not enabled");
    }
    return new OAuth(
        config,
        new OAuthStore(config.jdbcUrl(), StartupRetry.postgres("Postgres (OAuth)", retryFor)));
  }

  public OAuthConfig config() {
    return config;
  }

  AuthorizationServer server() {
    return server;
  }

  /**
   * The client id an {@code Authorization} header's bearer token belongs to; empty when there is no
   * bearer token or it is not a valid, unrevoked access token of this issuer.
   */
  public Optional<String> bearer(String authorization) {
    if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    try {
      return Optional.of(server.verify(authorization.substring(7).trim()).clientId());
    } catch (TokenService.InvalidToken e) {
      return Optional.empty();
    }
  }

  /** The {@code WWW-Authenticate} value of a 401 on an MCP route (RFC 9728 section 5.1). */
  public String challenge() {
    return "Bearer realm=\"taskmesh\", resource_metadata=\""
        + config.protectedResourceMetadataUrl()
        + "\"";
  }

  @Override
  public void close() {
    store.close();
  }
}

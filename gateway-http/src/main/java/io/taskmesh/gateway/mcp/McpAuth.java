package io.taskmesh.gateway.mcp;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.function.Function;

/**
 * Who an MCP request comes from ({@code /mcp}, {@code /mcp/sse}, {@code /tools/call}, {@code
 * /stream/{id}}): the static bearer key of {@code SVC_MCP_API_KEY}, compared in constant time, or
 * an OAuth 2.1 access token of the gateway's own authorization server, whose client id is then the
 * principal (the two are mutually exclusive). With neither every request passes as the anonymous
 * client.
 */
public final class McpAuth {
  public static final String ANONYMOUS = null;
  public static final String STATIC_KEY_PRINCIPAL = "mcp-api-key";
  private final byte[] key;
  private final Function<String, Optional<String>> oauth;
  private final String challenge;

  public McpAuth(String apiKey) {
    this.key = apiKey == null || apiKey.isEmpty() ? null : apiKey.getBytes(StandardCharsets.UTF_8);
    this.oauth = null;
    this.challenge = challenge();
  }

  /**
   * OAuth mode.
   *
   * @param bearer the client id of an {@code Authorization} header's valid access token, else empty
   * @param challenge the 401's {@code WWW-Authenticate}, naming the protected resource metadata
   */
  public McpAuth(Function<String, Optional<String>> bearer, String challenge) {
    this.key = null;
    this.oauth = bearer;
    this.challenge = challenge;
  }

  public boolean enabled() {
    return key != null || oauth != null;
  }

  /**
   * The principal for an {@code Authorization} header value: empty when auth is on and the
   * credentials are missing or wrong; {@code Optional.ofNullable(ANONYMOUS)} cannot express "passed
   * anonymously", so callers check {@link #enabled()} first.
   */
  public Optional<String> authenticate(String authorization) {
    if (oauth != null) {
      return oauth.apply(authorization);
    }
    if (key == null) {
      return Optional.of("anonymous");
    }
    String presented =
        authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)
            ? authorization.substring(7).trim()
            : "";
    return MessageDigest.isEqual(presented.getBytes(StandardCharsets.UTF_8), key)
        ? Optional.of(STATIC_KEY_PRINCIPAL)
        : Optional.empty();
  }

  /** The owner recorded on tasks: null (nobody in particular) when auth is off. */
  public String owner(String principal) {
    return enabled() ? principal : null;
  }

  /** This gateway's {@code WWW-Authenticate} for a 401. */
  public String wwwAuthenticate() {
    return challenge;
  }

  public static String challenge() {
    return "Bearer realm=\"taskmesh\"";
  }
}

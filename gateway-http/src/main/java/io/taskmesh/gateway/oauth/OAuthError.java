package io.taskmesh.gateway.oauth;

/**
 * An OAuth error as RFC 6749 section 5.2 shapes it ({@code error}, {@code error_description}), with
 * the HTTP status it answers with.
 */
public final class OAuthError extends RuntimeException {
  private final String code;
  private final int status;

  public OAuthError(int status, String code, String description) {
    super(description);
    this.status = status;
    this.code = code;
  }

  static OAuthError invalidRequest(String description) {
    return new OAuthError(400, "invalid_request", description);
  }

  static OAuthError invalidGrant(String description) {
    return new OAuthError(400, "invalid_grant", description);
  }

  static OAuthError invalidClient(String description) {
    return new OAuthError(401, "invalid_client", description);
  }

  public String code() {
    return code;
  }

  public int status() {
    return status;
  }
}

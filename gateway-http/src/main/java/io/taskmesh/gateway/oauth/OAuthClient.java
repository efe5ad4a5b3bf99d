package io.taskmesh.gateway.oauth;

import java.util.List;

/**
 * A public client: registered (RFC 7591) or described by its client ID metadata document.
 *
 * @param scope space-separated scopes it may ask for
 * @param grantTypes the grants it registered ({@code authorization_code}, {@code refresh_token})
 */
public record OAuthClient(
    String clientId,
    String clientName,
    List<String> redirectUris,
    String scope,
    List<String> grantTypes) {

  public OAuthClient {
    redirectUris = List.copyOf(redirectUris);
    grantTypes = List.copyOf(grantTypes);
  }

  boolean allows(String grantType) {
    return grantTypes.contains(grantType);
  }
}

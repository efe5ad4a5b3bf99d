package io.taskmesh.gateway.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The gateway as its own OAuth 2.1 authorization server: registration (RFC 7591), the authorization
 * endpoint (registered public clients are approved without a login page; PKCE S256 required; exact
 * redirect URI), the token endpoint (code exchange and refresh rotation) and the metadata documents
 * (RFC 8414, RFC 9728). HTTP lives in {@link OAuthRoutes}; this class decides.
 */
public final class AuthorizationServer {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final OAuthConfig config;
  private final OAuthStore store;
  private final TokenService tokens;
  private final ClientMetadataDocuments documents;
  private final Clock clock;
  private final RevokedFamilies revoked;
  private final MetadataDocumentPolicy documentPolicy;

  public AuthorizationServer(
      OAuthConfig config,
      OAuthStore store,
      TokenService tokens,
      ClientMetadataDocuments documents) {
    this.config = config;
    this.store = store;
    this.tokens = tokens;
    this.documents = documents;
    this.clock = config.clock();
    this.revoked = new RevokedFamilies(store::familyRevoked, System::nanoTime);
    this.documentPolicy = config.metadataDocumentPolicy();
  }

  public OAuthConfig config() {
    return config;
  }

  /**
   * RFC 8414 authorization server metadata: every field the spec lists, plus RFC 9207 and CIMD
   * support.
   */
  public Map<String, Object> metadata() {
    String iss = config.issuer();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("issuer", iss);
    m.put("authorization_endpoint", iss + "/oauth/authorize");
    m.put("token_endpoint", iss + "/oauth/token");
    m.put("registration_endpoint", iss + "/oauth/register");
    m.put("scopes_supported", Scopes.SUPPORTED);
    m.put("response_types_supported", List.of("code"));
    m.put("grant_types_supported", ClientMetadata.GRANTS);
    m.put("code_challenge_methods_supported", List.of("S256"));
    m.put("token_endpoint_auth_methods_supported", List.of("none"));
    m.put("authorization_response_iss_parameter_supported", true);
    m.put("client_id_metadata_document_supported", documentPolicy.enabled());
    return m;
  }

  /**
   * RFC 9728 protected resource metadata for {@code resource} (the gateway or one of its MCP
   * paths).
   */
  public Map<String, Object> resourceMetadata(String resource) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("resource", resource);
    m.put("authorization_servers", List.of(config.issuer()));
    m.put("scopes_supported", Scopes.SUPPORTED);
    m.put("bearer_methods_supported", List.of("header"));
    return m;
  }

  /**
   * RFC 7591 registration of a public client.
   *
   * @param bearer the request's registration token ({@code Authorization: Bearer}), or null
   */
  public OAuthClient register(JsonNode body, String bearer) {
    String required = config.registrationToken();
    if (required != null
        && (bearer == null
            || !MessageDigest.isEqual(
                required.getBytes(StandardCharsets.UTF_8),
                bearer.getBytes(StandardCharsets.UTF_8)))) {
      throw new OAuthError(
          401, "invalid_token", "registration requires the registration token as a bearer token");
    }
    if (body == null || !body.isObject()) {
      throw OAuthError.invalidRequest("the registration request must be a JSON object");
    }
    String method = body.path("token_endpoint_auth_method").asText("none");
    if (!method.equals("none")) {
      throw new OAuthError(
          400, "invalid_client_metadata", "only public clients (token_endpoint_auth_method none)");
    }
    ClientMetadata m = ClientMetadata.read(body);
    OAuthClient client =
        new OAuthClient(
            randomToken(16), m.clientName(), m.redirectUris(), m.scope(), m.grantTypes());
    store.saveClient(client);
    return client;
  }

  static boolean hasControlCharacter(String s) {
    return s.chars().anyMatch(Character::isISOControl);
  }

  /** A client by id: registered in the store, or described by its metadata document. */
  public Optional<OAuthClient> client(String clientId) {
    if (clientId == null || clientId.isBlank() || clientId.length() > 2000) {
      return Optional.empty();
    }
    if (hasControlCharacter(clientId)) {
      // no id we issue holds one, and the store cannot even be asked (U+0000): the request's fault
      throw OAuthError.invalidRequest("client_id must not contain control characters");
    }
    if (ClientMetadataDocuments.isDocumentUrl(clientId)) {
      documentPolicy.check(clientId); // before any fetch: a refused URL is never requested
      return Optional.of(documents.resolve(clientId));
    }
    return store.client(clientId);
  }

  /**
   * The first checks of an authorization request, whose failures must not redirect: the client and
   * the redirect URI. Returns the client; {@link OAuthError} when either is wrong.
   */
  public OAuthClient authorizeTarget(String clientId, String redirectUri) {
    if (clientId == null || clientId.isBlank()) {
      throw OAuthError.invalidRequest("client_id is required");
    }
    OAuthClient client =
        client(clientId).orElseThrow(() -> OAuthError.invalidClient("unknown client_id"));
    if (redirectUri == null || redirectUri.isBlank()) {
      throw OAuthError.invalidRequest("redirect_uri is required");
    }
    if (!RedirectUris.registered(client.redirectUris(), redirectUri)) {
      throw OAuthError.invalidRequest("redirect_uri is not registered for this client");
    }
    return client;
  }

  /**
   * The rest of an authorization request (errors here go back to the redirect URI); returns the new
   * authorization code.
   */
  public String authorize(OAuthClient client, String redirectUri, Map<String, String> params) {
    if (!"code".equals(params.get("response_type"))) {
      throw new OAuthError(400, "unsupported_response_type", "response_type must be code");
    }
    if (!client.allows("authorization_code")) {
      throw new OAuthError(
          400, "unauthorized_client", "this client did not register the authorization_code grant");
    }
    String challenge = params.get("code_challenge");
    if (challenge == null || challenge.isBlank()) {
      throw OAuthError.invalidRequest("code_challenge is required (PKCE)");
    }
    if (!"S256".equals(params.get("code_challenge_method"))) {
      throw OAuthError.invalidRequest("code_challenge_method must be S256");
    }
    if (!Pkce.validChallenge(challenge)) {
      throw OAuthError.invalidRequest(
          "code_challenge must be the base64url SHA-256 of the verifier (43 characters)");
    }
    String scope = scope(params.get("scope"), client.scope());
    String resource = resource(params.get("resource"));
    String code = randomToken(32);
    store.saveCode(
        code,
        new OAuthStore.IssuedCode(
            client.clientId(),
            redirectUri,
            challenge,
            scope,
            resource,
            UUID.randomUUID().toString(),
            clock.millis() + OAuthConfig.CODE_TTL.toMillis()));
    return code;
  }

  /** {@code grant_type=authorization_code}. */
  public TokenResponse exchangeCode(Map<String, String> form) {
    String code = required(form, "code");
    String clientId = required(form, "client_id");
    String redirectUri = required(form, "redirect_uri");
    String verifier = required(form, "code_verifier");
    OAuthClient client =
        client(clientId).orElseThrow(() -> OAuthError.invalidClient("unknown client_id"));
    if (!client.allows("authorization_code")) {
      throw new OAuthError(
          400, "unauthorized_client", "this client did not register the authorization_code grant");
    }
    OAuthStore.IssuedCode issued;
    try {
      issued =
          store
              .consumeCode(code)
              .orElseThrow(() -> OAuthError.invalidGrant("unknown authorization code"));
    } catch (OAuthStore.CodeReuse e) {
      revoked.revoked(e.familyId);
      throw OAuthError.invalidGrant(e.getMessage());
    }
    if (issued.expiresAtMillis() <= clock.millis()) {
      throw OAuthError.invalidGrant("authorization code expired");
    }
    if (!issued.clientId().equals(clientId)) {
      throw OAuthError.invalidGrant("authorization code was issued to another client");
    }
    if (!issued.redirectUri().equals(redirectUri)) {
      throw OAuthError.invalidGrant("redirect_uri differs from the authorization request");
    }
    if (!Pkce.matches(verifier, issued.codeChallenge())) {
      throw OAuthError.invalidGrant("code_verifier does not match the code_challenge");
    }
    String resource = form.get("resource");
    if (resource != null && !resource.equals(issued.resource())) {
      throw new OAuthError(
          400, "invalid_target", "resource differs from the authorization request");
    }
    String refresh = client.allows("refresh_token") ? randomToken(32) : null;
    store.startFamily(
        issued.familyId(),
        clientId,
        issued.scope(),
        issued.resource(),
        refresh,
        clock.millis() + OAuthConfig.REFRESH_TTL.toMillis());
    return response(clientId, issued.scope(), issued.resource(), issued.familyId(), refresh);
  }

  /** {@code grant_type=refresh_token}: rotates the token; a reused one revokes its family. */
  public TokenResponse refresh(Map<String, String> form) {
    String presented = required(form, "refresh_token");
    String clientId = required(form, "client_id");
    OAuthClient client =
        client(clientId).orElseThrow(() -> OAuthError.invalidClient("unknown client_id"));
    if (!client.allows("refresh_token")) {
      throw new OAuthError(
          400, "unauthorized_client", "this client did not register the refresh_token grant");
    }
    String next = randomToken(32);
    OAuthStore.Family family;
    try {
      family =
          store
              .rotate(
                  presented,
                  clientId,
                  next,
                  clock.millis() + OAuthConfig.REFRESH_TTL.toMillis(),
                  clock.millis())
              .orElseThrow(() -> OAuthError.invalidGrant("unknown refresh token"));
    } catch (OAuthStore.RefreshReuse e) {
      revoked.revoked(e.familyId);
      throw OAuthError.invalidGrant(e.getMessage());
    }
    String scope = family.scope();
    String asked = form.get("scope");
    if (asked != null && !asked.isBlank()) {
      if (!Scopes.within(asked, family.scope())) {
        throw new OAuthError(400, "invalid_scope", "a refresh cannot widen the granted scope");
      }
      scope = Scopes.normalise(asked);
    }
    String resource = form.get("resource");
    if (resource != null && !resource.equals(family.resource())) {
      throw new OAuthError(
          400, "invalid_target", "resource differs from the one the grant was for");
    }
    return response(clientId, scope, family.resource(), family.familyId(), next);
  }

  /** Verifies an access token, including that its family was not revoked. */
  public AccessToken verify(String token) {
    AccessToken t = tokens.verify(token);
    if (revoked.isRevoked(t.familyId())) {
      throw new TokenService.InvalidToken("token family revoked");
    }
    return t;
  }

  private TokenResponse response(
      String clientId, String scope, String resource, String familyId, String refresh) {
    String access = tokens.issue(clientId, scope, resource, familyId);
    return new TokenResponse(access, tokens.ttl().toSeconds(), refresh, scope);
  }

  private String scope(String requested, String allowed) {
    if (requested == null || requested.isBlank()) {
      return allowed;
    }
    String s = Scopes.normalise(requested);
    if (s == null || !Scopes.within(s, allowed)) {
      throw new OAuthError(400, "invalid_scope", "scope must be within: " + allowed);
    }
    return s;
  }

  /**
   * RFC 8707: an absolute URI without fragment that this gateway serves; absent means the gateway
   * itself.
   */
  private String resource(String requested) {
    if (requested == null || requested.isBlank()) {
      return config.resource();
    }
    try {
      URI u = new URI(requested);
      if (!u.isAbsolute() || u.getRawFragment() != null || !tokens.servedHere(requested)) {
        throw new OAuthError(
            400, "invalid_target", "resource is not served by this authorization server");
      }
    } catch (URISyntaxException e) {
      throw new OAuthError(400, "invalid_target", "resource is not a valid URI");
    }
    return requested;
  }

  private static String required(Map<String, String> form, String name) {
    String v = form.get(name);
    if (v == null || v.isBlank()) {
      throw OAuthError.invalidRequest(name + " is required");
    }
    return v;
  }

  static String randomToken(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  /** A successful token response (RFC 6749 section 5.1). */
  public record TokenResponse(
      String accessToken, long expiresIn, String refreshToken, String scope) {
    public Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("access_token", accessToken);
      m.put("token_type", "Bearer");
      m.put("expires_in", expiresIn);
      if (refreshToken != null) {
        m.put("refresh_token", refreshToken);
      }
      m.put("scope", scope);
      return m;
    }
  }
}

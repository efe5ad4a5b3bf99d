package io.taskmesh.gateway.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Client metadata as RFC 7591 registration and client ID metadata documents carry it, checked:
 * redirect URIs (required, https or loopback http), the grants and response types we support,
 * scopes within {@link Scopes#SUPPORTED}.
 */
record ClientMetadata(
    String clientName, List<String> redirectUris, String scope, List<String> grantTypes) {
  static final int MAX_REDIRECT_URIS = 20;
  static final int MAX_NAME = 200;
  static final List<String> GRANTS = List.of("authorization_code", "refresh_token");

  static ClientMetadata read(JsonNode doc) {
    JsonNode uris = doc.get("redirect_uris");
    if (uris == null || uris.isNull()) {
      throw new OAuthError(400, "invalid_redirect_uri", "redirect_uris is required");
    }
    if (!uris.isArray() || uris.isEmpty() || uris.size() > MAX_REDIRECT_URIS) {
      throw new OAuthError(
          400,
          "invalid_redirect_uri",
          "redirect_uris must be a list of 1 to " + MAX_REDIRECT_URIS + " URIs");
    }
    List<String> redirects = new ArrayList<>();
    for (JsonNode u : uris) {
      String problem =
          u.isTextual() ? RedirectUris.problem(u.asText()) : "redirect URI must be a string";
      if (problem != null) {
        throw new OAuthError(400, "invalid_redirect_uri", problem);
      }
      redirects.add(u.asText());
    }
    String name = text(doc, "client_name");
    if (name != null && name.length() > MAX_NAME) {
      throw metadata("client_name is longer than " + MAX_NAME + " characters");
    }
    List<String> grants = list(doc, "grant_types", GRANTS);
    if (!GRANTS.containsAll(grants) || !grants.contains("authorization_code")) {
      throw metadata("grant_types must include authorization_code and may add refresh_token only");
    }
    List<String> responses = list(doc, "response_types", List.of("code"));
    if (!responses.equals(List.of("code"))) {
      throw metadata("response_types must be [\"code\"]");
    }
    String scope = text(doc, "scope");
    String granted = scope == null ? Scopes.ALL : Scopes.normalise(scope);
    if (granted == null) {
      throw metadata("scope must be a subset of: " + Scopes.ALL);
    }
    return new ClientMetadata(name, List.copyOf(new LinkedHashSet<>(redirects)), granted, grants);
  }

  private static String text(JsonNode doc, String field) {
    JsonNode v = doc.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      throw metadata(field + " must be a string");
    }
    // Postgres text cannot hold U+0000: refused here as the client's error, not met at the store
    if (AuthorizationServer.hasControlCharacter(v.asText())) {
      throw metadata(field + " must not contain control characters");
    }
    return v.asText();
  }

  private static List<String> list(JsonNode doc, String field, List<String> dflt) {
    JsonNode v = doc.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.isArray()) {
      throw metadata(field + " must be a list of strings");
    }
    Set<String> out = new LinkedHashSet<>();
    for (JsonNode x : v) {
      if (!x.isTextual()) {
        throw metadata(field + " must be a list of strings");
      }
      out.add(x.asText());
    }
    return List.copyOf(out);
  }

  private static OAuthError metadata(String why) {
    return new OAuthError(400, "invalid_client_metadata", why);
  }

  /** The space-separated list a scope string names, for callers outside this record. */
  static List<String> words(String scope) {
    return scope == null || scope.isBlank() ? List.of() : Arrays.asList(scope.trim().split("\\s+"));
  }
}

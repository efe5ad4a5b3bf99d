package io.taskmesh.gateway.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.taskmesh.gateway.http.SsrfGuard;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25): a
 * {@code client_id} that is an https URL names the client's own metadata document, which we fetch
 * instead of requiring registration.
 *
 * <p>The fetch is a server-side request to a URL a stranger chose, so it is guarded: https only, no
 * user info or fragment, a path required, every address the host resolves to must be public ({@link
 * SsrfGuard}, the same check as A2A push targets), no redirects followed, 3 s to connect, 5 s in
 * all, at most {@link #MAX_BYTES}. Good documents are cached for {@link #CACHE_TTL}. The JDK caches
 * positive DNS answers (30 s by default), so the connection goes to the addresses that were
 * checked.
 *
 * <p>{@code allowLoopback} ({@code SVC_MCP_OAUTH_CIMD_ALLOW_LOOPBACK}) is for tests only: it also
 * accepts http on 127.0.0.1 / localhost / [::1]; private and link-local addresses stay refused.
 */
public final class ClientMetadataDocuments {
  static final int MAX_BYTES = 16 * 1024;
  static final Duration CACHE_TTL = Duration.ofMinutes(5);
  private static final int MAX_CACHED = 1000;

  private final boolean allowLoopback;
  private final Clock clock;
  private final ObjectMapper json = new ObjectMapper();
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(3))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();

  private record Cached(OAuthClient client, Instant until) {}

  public ClientMetadataDocuments(boolean allowLoopback, Clock clock) {
    this.allowLoopback = allowLoopback;
    this.clock = clock;
  }

  /** Whether {@code clientId} names a metadata document rather than a registered client. */
  public static boolean isDocumentUrl(String clientId) {
    return clientId != null && (clientId.startsWith("https://") || clientId.startsWith("http://"));
  }

  /**
   * The client its document describes; {@link OAuthError} {@code invalid_client} when refused or
   * unusable.
   */
  public OAuthClient resolve(String clientId) {
    Cached hit = cache.get(clientId);
    if (hit != null && clock.instant().isBefore(hit.until())) {
      return hit.client();
    }
    URI url = guard(clientId);
    OAuthClient client = parse(clientId, fetch(url));
    if (cache.size() >= MAX_CACHED) {
      cache.clear();
    }
    cache.put(clientId, new Cached(client, clock.instant().plus(CACHE_TTL)));
    return client;
  }

  /** The SSRF guard: the URL's form and every address its host resolves to. */
  URI guard(String clientId) {
    URI u;
    try {
      u = new URI(clientId);
    } catch (URISyntaxException e) {
      throw refused("client_id is not a valid URL");
    }
    String host = u.getHost();
    boolean loopbackHost = RedirectUris.isLoopbackHost(host);
    boolean schemeOk =
        "https".equals(u.getScheme())
            || (allowLoopback && loopbackHost && "http".equals(u.getScheme()));
    if (host == null || !schemeOk) {
      throw refused("a client ID metadata document must be served over https");
    }
    if (u.getRawUserInfo() != null || u.getRawFragment() != null) {
      throw refused("client_id URL must not carry user info or a fragment");
    }
    String path = u.getRawPath();
    if (path == null
        || path.isEmpty()
        || path.equals("/")
        || path.contains("/./")
        || path.contains("/../")) {
      throw refused("client_id URL must have a path without dot segments");
    }
    try {
      SsrfGuard.requirePublic(host, allowLoopback);
    } catch (SsrfGuard.Refused e) {
      throw refused("client_id " + e.getMessage());
    }
    return u;
  }

  private byte[] fetch(URI url) {
    HttpRequest req =
        HttpRequest.newBuilder(url)
            .timeout(Duration.ofSeconds(5))
            .header("Accept", "application/json")
            .GET()
            .build();
    try {
      HttpResponse<InputStream> res = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream in = res.body()) {
        if (res.statusCode() != 200) {
          throw refused("client ID metadata document answered HTTP " + res.statusCode());
        }
        byte[] body = in.readNBytes(MAX_BYTES + 1);
        if (body.length > MAX_BYTES) {
          throw refused("client ID metadata document is larger than " + MAX_BYTES + " bytes");
        }
        return body;
      }
    } catch (IOException e) {
      throw refused(
          "client ID metadata document could not be fetched: " + e.getClass().getSimpleName());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw refused("interrupted");
    }
  }

  private OAuthClient parse(String clientId, byte[] body) {
    JsonNode doc;
    try {
      doc = json.readTree(body);
    } catch (IOException e) {
      throw refused("client ID metadata document is not JSON");
    }
    if (doc == null || !doc.isObject()) {
      throw refused("client ID metadata document is not a JSON object");
    }
    if (!clientId.equals(doc.path("client_id").asText(null))) {
      throw refused("client ID metadata document's client_id differs from its URL");
    }
    if (doc.has("client_secret")) {
      throw refused("a client ID metadata document must not contain a client_secret");
    }
    String method = doc.path("token_endpoint_auth_method").asText("none");
    if (!method.equals("none")) {
      throw refused("only public clients (token_endpoint_auth_method none) are supported");
    }
    try {
      ClientMetadata m = ClientMetadata.read(doc);
      return new OAuthClient(clientId, m.clientName(), m.redirectUris(), m.scope(), m.grantTypes());
    } catch (OAuthError e) {
      throw refused("client ID metadata document: " + e.getMessage());
    }
  }

  private static OAuthError refused(String why) {
    return OAuthError.invalidClient(why);
  }
}

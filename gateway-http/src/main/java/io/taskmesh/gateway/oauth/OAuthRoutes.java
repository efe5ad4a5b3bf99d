package io.taskmesh.gateway.oauth;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.taskmesh.gateway.http.RefusedBodies;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The OAuth routes, registered only when OAuth is enabled: the two metadata documents, and
 * register, authorize and token. Errors are RFC 6749 section 5.2 JSON; authorization errors go back
 * to the client's registered redirect URI as {@code error=} parameters, except when the client or
 * the redirect URI itself is wrong, which never redirects.
 */
public final class OAuthRoutes {
  /** OAuth requests are small; anything larger is refused before it is parsed. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(OAuthRoutes.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PRM = "/.well-known/oauth-protected-resource";

  private OAuthRoutes() {}

  public static void register(JavalinConfig cfg, OAuth oauth) {
    AuthorizationServer as = oauth.server();
    OAuthConfig config = oauth.config();
    cfg.routes.get(PRM, ctx -> ctx.json(as.resourceMetadata(config.resource())));
    // path-based discovery (RFC 9728 section 3.1), which MCP clients try first for their server URL
    for (String path : OAuthConfig.RESOURCE_PATHS.subList(1, OAuthConfig.RESOURCE_PATHS.size())) {
      cfg.routes.get(PRM + path, ctx -> ctx.json(as.resourceMetadata(config.resource() + path)));
    }
    cfg.routes.get("/.well-known/oauth-authorization-server", ctx -> ctx.json(as.metadata()));
    String issuerPath = URI.create(config.issuer()).getRawPath();
    if (issuerPath != null
        && !issuerPath.isEmpty()) { // RFC 8414 section 3.1: path inserted after the well-known part
      cfg.routes.get(
          "/.well-known/oauth-authorization-server" + issuerPath, ctx -> ctx.json(as.metadata()));
    }
    cfg.routes.post("/oauth/register", ctx -> register(ctx, as));
    cfg.routes.get("/oauth/authorize", ctx -> authorize(ctx, as));
    cfg.routes.post("/oauth/token", ctx -> token(ctx, as));
    cfg.routes.exception(OAuthError.class, (e, ctx) -> error(ctx, e));
    cfg.routes.exception(
        OAuthStore.StoreUnavailable.class,
        (e, ctx) -> {
          LOG.error("{}", e.getMessage());
          error(
              ctx.header("Retry-After", "1"),
              new OAuthError(503, "temporarily_unavailable", "storage unavailable"));
        });
  }

  private static void register(Context ctx, AuthorizationServer as) {
    byte[] body = limitedBody(ctx);
    String auth = ctx.header("Authorization");
    String bearer =
        auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
            ? auth.substring(7).trim()
            : null;
    JsonNode json;
    try {
      json = JSON.readTree(body);
    } catch (IOException e) {
      if (as.config().registrationToken() != null) {
        as.register(null, bearer); // an unauthenticated caller learns nothing about the body first
      }
      throw OAuthError.invalidRequest("invalid JSON");
    }
    OAuthClient c = as.register(json, bearer);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("client_id", c.clientId());
    out.put("client_id_issued_at", System.currentTimeMillis() / 1000);
    out.put("client_name", c.clientName());
    out.put("redirect_uris", c.redirectUris());
    out.put("scope", c.scope());
    out.put("grant_types", c.grantTypes());
    out.put("response_types", List.of("code"));
    out.put("token_endpoint_auth_method", "none");
    noStore(ctx).status(HttpStatus.CREATED).json(out);
  }

  private static void authorize(Context ctx, AuthorizationServer as) {
    Map<String, String> params = new HashMap<>();
    String duplicate = null;
    for (Map.Entry<String, List<String>> e : ctx.queryParamMap().entrySet()) {
      if (e.getValue().size() > 1) {
        duplicate = e.getKey();
      }
      params.put(e.getKey(), e.getValue().get(0));
    }
    if ("client_id".equals(duplicate) || "redirect_uri".equals(duplicate)) {
      throw OAuthError.invalidRequest(duplicate + " is given more than once");
    }
    String redirectUri = params.get("redirect_uri");
    OAuthClient client =
        as.authorizeTarget(params.get("client_id"), redirectUri); // throws: no redirect
    Map<String, String> answer = new LinkedHashMap<>();
    try {
      if (duplicate != null) {
        throw OAuthError.invalidRequest(duplicate + " is given more than once");
      }
      answer.put("code", as.authorize(client, redirectUri, params));
    } catch (OAuthError e) {
      answer.put("error", e.code());
      answer.put("error_description", e.getMessage());
    }
    if (params.get("state") != null) {
      answer.put("state", params.get("state"));
    }
    answer.put("iss", as.config().issuer()); // RFC 9207
    ctx.header("Cache-Control", "no-store")
        .redirect(withQuery(redirectUri, answer), HttpStatus.FOUND);
  }

  private static void token(Context ctx, AuthorizationServer as) {
    String type = ctx.contentType();
    if (type == null
        || !type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
      throw OAuthError.invalidRequest(
          "the token request must be application/x-www-form-urlencoded");
    }
    Map<String, String> form = form(new String(limitedBody(ctx), StandardCharsets.UTF_8));
    String grant = form.get("grant_type");
    if (grant == null || grant.isBlank()) {
      throw OAuthError.invalidRequest("grant_type is required");
    }
    AuthorizationServer.TokenResponse r =
        switch (grant) {
          case "authorization_code" -> as.exchangeCode(form);
          case "refresh_token" -> as.refresh(form);
          default ->
              throw new OAuthError(
                  400,
                  "unsupported_grant_type",
                  "grant_type must be authorization_code or refresh_token");
        };
    noStore(ctx).json(r.json());
  }

  /**
   * An {@code application/x-www-form-urlencoded} body; a parameter given twice is an error (RFC
   * 6749 section 3.2).
   */
  static Map<String, String> form(String body) {
    Map<String, String> out = new HashMap<>();
    for (String pair : body.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String k;
      String v;
      try {
        k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        throw OAuthError.invalidRequest("malformed form encoding");
      }
      if (out.put(k, v) != null) {
        throw OAuthError.invalidRequest(k + " is given more than once");
      }
    }
    return out;
  }

  private static byte[] limitedBody(Context ctx) {
    long declared = ctx.contentLength();
    if (declared > MAX_BODY_BYTES) {
      RefusedBodies.drain(ctx.req());
      throw new OAuthError(
          413, "invalid_request", "request body larger than " + MAX_BODY_BYTES + " bytes");
    }
    byte[] body = ctx.bodyAsBytes();
    if (body.length > MAX_BODY_BYTES) {
      throw new OAuthError(
          413, "invalid_request", "request body larger than " + MAX_BODY_BYTES + " bytes");
    }
    return body;
  }

  static String withQuery(String uri, Map<String, String> params) {
    StringBuilder b = new StringBuilder(uri);
    char sep = uri.contains("?") ? '&' : '?';
    for (Map.Entry<String, String> e : params.entrySet()) {
      b.append(sep)
          .append(URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8))
          .append('=')
          .append(URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
      sep = '&';
    }
    return b.toString();
  }

  private static Context noStore(Context ctx) {
    return ctx.header("Cache-Control", "no-store").header("Pragma", "no-cache");
  }

  private static void error(Context ctx, OAuthError e) {
    Map<String, String> body = new LinkedHashMap<>();
    body.put("error", e.code());
    body.put("error_description", e.getMessage());
    if (e.status() == 401) {
      ctx.header(
          "WWW-Authenticate",
          e.code().equals("invalid_client")
              ? "Bearer realm=\"taskmesh\", error=\"invalid_client\""
              : "Bearer realm=\"taskmesh\", error=\"invalid_token\"");
    }
    noStore(ctx).status(e.status()).json(body);
  }
}

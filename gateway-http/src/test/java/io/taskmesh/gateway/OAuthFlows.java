package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.gateway.oauth.Pkce;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/** A raw HTTP OAuth client for the ITs: register, authorize (reading the 302), token requests. */
final class OAuthFlows {
  static final HttpClient HTTP =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  static final String REDIRECT = "http://127.0.0.1:53682/callback";
  private static final SecureRandom RANDOM = new SecureRandom();

  private OAuthFlows() {}

  record Tokens(String access, String refresh, JsonNode body) {}

  static String verifier() {
    byte[] b = new byte[48];
    RANDOM.nextBytes(b);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
  }

  static HttpResponse<String> registerRaw(String base, String body, String bearer)
      throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(base + "/oauth/register"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (bearer != null) {
      r.header("Authorization", "Bearer " + bearer);
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String register(String base, String bearer) throws Exception {
    HttpResponse<String> r =
        registerRaw(
            base, "{\"client_name\":\"it\",\"redirect_uris\":[\"" + REDIRECT + "\"]}", bearer);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    return Json.MAPPER.readTree(r.body()).get("client_id").asText();
  }

  static Map<String, String> authorizeParams(String clientId, String verifier) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("response_type", "code");
    p.put("client_id", clientId);
    p.put("redirect_uri", REDIRECT);
    p.put("code_challenge", Pkce.challengeOf(verifier));
    p.put("code_challenge_method", "S256");
    p.put("state", "st-1");
    return p;
  }

  static HttpResponse<String> authorizeRaw(String base, Map<String, String> params)
      throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + "/oauth/authorize?" + form(params))).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The query parameters of the 302's Location (code or error, state, iss). */
  static Map<String, String> redirected(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
    URI loc = URI.create(r.headers().firstValue("Location").orElseThrow());
    assertThat(loc.getScheme() + "://" + loc.getAuthority() + loc.getPath()).isEqualTo(REDIRECT);
    Map<String, String> q = new HashMap<>();
    for (String pair : loc.getRawQuery().split("&")) {
      String[] kv = pair.split("=", 2);
      q.put(
          URLDecoder.decode(kv[0], StandardCharsets.UTF_8),
          URLDecoder.decode(kv[1], StandardCharsets.UTF_8));
    }
    return q;
  }

  static String code(String base, String clientId, String verifier) throws Exception {
    Map<String, String> q = redirected(authorizeRaw(base, authorizeParams(clientId, verifier)));
    assertThat(q).containsEntry("state", "st-1").doesNotContainKey("error");
    return q.get("code");
  }

  static HttpResponse<String> token(String base, Map<String, String> form) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(base + "/oauth/token"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form(form)))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static Map<String, String> exchangeForm(String clientId, String code, String verifier) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("grant_type", "authorization_code");
    f.put("code", code);
    f.put("client_id", clientId);
    f.put("redirect_uri", REDIRECT);
    f.put("code_verifier", verifier);
    return f;
  }

  static Map<String, String> refreshForm(String clientId, String refresh) {
    Map<String, String> f = new LinkedHashMap<>();
    f.put("grant_type", "refresh_token");
    f.put("refresh_token", refresh);
    f.put("client_id", clientId);
    return f;
  }

  static Tokens tokens(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode b = Json.MAPPER.readTree(r.body());
    return new Tokens(b.get("access_token").asText(), b.path("refresh_token").asText(null), b);
  }

  /** Register, authorize, exchange: a fresh client's tokens. */
  static Tokens login(String base, String clientId) throws Exception {
    String v = verifier();
    return tokens(token(base, exchangeForm(clientId, code(base, clientId, v), v)));
  }

  /** The OAuth error code of a 4xx JSON answer, after checking the status. */
  static String error(HttpResponse<String> r, int status) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode b = Json.MAPPER.readTree(r.body());
    assertThat(b.has("error_description")).isTrue();
    return b.get("error").asText();
  }

  static HttpResponse<String> callTool(String base, String access) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(base + "/tools/call"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"name\":\"echo\",\"arguments\":{}}"));
    if (access != null) {
      r.header("Authorization", "Bearer " + access);
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String taskId(HttpResponse<String> call) throws Exception {
    assertThat(call.statusCode()).as(call.body()).isEqualTo(200);
    return Json.MAPPER
        .readTree(Json.MAPPER.readTree(call.body()).get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  static HttpResponse<String> get(String url, String access) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET();
    if (access != null) {
      r.header("Authorization", "Bearer " + access);
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  static String form(Map<String, String> params) {
    StringJoiner j = new StringJoiner("&");
    params.forEach(
        (k, v) ->
            j.add(
                URLEncoder.encode(k, StandardCharsets.UTF_8)
                    + "="
                    + URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return j.toString();
  }
}

package io.taskmesh.meshapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ApiException;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The kv-connector over its Unix socket: HTTP/1.1 with the connector's own {@link UnixHttpClient}
 * (JDK SocketChannel, keep-alive connection pool). The only way mesh-api persists anything. Reads
 * (GET, POST /query) are retried once when a pooled connection turns out to be closed; writes are
 * not (the connector may have applied them).
 */
public final class ConnectorClient implements AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(10);
  private static final Map<String, String> CREATE_ONLY = Map.of("If-None-Match", "*");

  private final UnixHttpClient http;

  public ConnectorClient(Path socket) {
    this.http = new UnixHttpClient(socket, UnixHttpClient.Options.defaults().withTimeout(TIMEOUT));
  }

  /** The stored value, or empty on 404. */
  public Optional<JsonNode> get(String key) {
    HttpResponse r = send("GET", "/keys/" + encode(key), null, null, true);
    if (r.status() == 404) {
      return Optional.empty();
    }
    expect(r, 200);
    return Optional.of(readTree(r).get("value"));
  }

  /** Exclusive create ({@code If-None-Match: *}); false when the key exists. */
  public boolean create(String key, JsonNode value) {
    HttpResponse r = send("PUT", "/keys/" + encode(key), CREATE_ONLY, Json.bytes(value), false);
    if (r.status() == 412) {
      return false;
    }
    expect(r, 201);
    return true;
  }

  /** Conditional write; false on 409 (stored status differs, or the key vanished). */
  public boolean putIfStatus(String key, JsonNode value, String ifStatus) {
    HttpResponse r =
        send(
            "PUT",
            "/keys/" + encode(key) + "?if_status=" + encode(ifStatus),
            null,
            Json.bytes(value),
            false);
    if (r.status() == 409) {
      return false;
    }
    expect(r, 200);
    return true;
  }

  /** Rows of {@code POST /query} and the total when {@code count} was asked. */
  public record Page(List<JsonNode> values, long total) {}

  public Page query(ObjectNode body) {
    // a read: safe to send again on a fresh connection
    HttpResponse r = send("POST", "/query", null, Json.bytes(body), true);
    expect(r, 200);
    JsonNode tree = readTree(r);
    List<JsonNode> values = new ArrayList<>();
    tree.path("rows").forEach(row -> values.add(row.get("value")));
    return new Page(values, tree.path("total").asLong(values.size()));
  }

  public boolean healthy() {
    try {
      return send("GET", "/healthz", null, null, true).status() == 200;
    } catch (ApiException e) {
      return false;
    }
  }

  private HttpResponse send(
      String method, String target, Map<String, String> headers, byte[] body, boolean retryable) {
    try {
      HttpResponse r = http.send(method, target, headers, body, retryable);
      if (r.status() == 503) {
        throw ApiException.unavailable("storage unavailable: " + r.bodyString(), null);
      }
      return r;
    } catch (ApiException e) {
      throw e;
    } catch (Exception e) {
      throw ApiException.unavailable("kv-connector unreachable", e);
    }
  }

  private static void expect(HttpResponse r, int status) {
    if (r.status() != status) {
      throw new ApiException(
          502, "bad_gateway", "kv-connector answered " + r.status() + ": " + r.bodyString());
    }
  }

  private static JsonNode readTree(HttpResponse r) {
    return Json.read(r.body(), JsonNode.class);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() {
    http.close();
  }
}

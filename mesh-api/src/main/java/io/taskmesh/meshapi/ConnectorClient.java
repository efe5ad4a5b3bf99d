package io.taskmesh.meshapi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;

/**
 * The kv-connector over its Unix socket: HTTP/1.1 with Jetty's HttpClient on the TCPUnix
 * transport. The only way mesh-api persists anything.
 */
public final class ConnectorClient implements AutoCloseable {
  private static final long TIMEOUT_MS = 10_000;

  private final HttpClient http = new HttpClient();
  private final Transport transport;

  public ConnectorClient(Path socket) {
    this.transport = new Transport.TCPUnix(socket);
    http.setMaxConnectionsPerDestination(64);
    http.setName("kv-connector-client");
    try {
      http.start();
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the connector client", e);
    }
  }

  /** The stored value, or empty on 404. */
  public Optional<JsonNode> get(String key) {
    ContentResponse r = send(HttpMethod.GET, "/keys/" + encode(key), null, null);
    if (r.getStatus() == 404) {
      return Optional.empty();
    }
    expect(r, 200);
    return Optional.of(readTree(r).get("value"));
  }

  /** Exclusive create ({@code If-None-Match: *}); false when the key exists. */
  public boolean create(String key, JsonNode value) {
    ContentResponse r = send(HttpMethod.PUT, "/keys/" + encode(key), value.toString(), "*");
    if (r.getStatus() == 412) {
      return false;
    }
    expect(r, 201);
    return true;
  }

  /** Conditional write; false on 409 (stored status differs, or the key vanished). */
  public boolean putIfStatus(String key, JsonNode value, String ifStatus) {
    ContentResponse r = send(HttpMethod.PUT, "/keys/" + encode(key) + "?if_status=" + encode(ifStatus),
        value.toString(), null);
    if (r.getStatus() == 409) {
      return false;
    }
    expect(r, 200);
    return true;
  }

  /** Rows of {@code POST /query} and the total when {@code count} was asked. */
  public record Page(List<JsonNode> values, long total) {}

  public Page query(ObjectNode body) {
    ContentResponse r = send(HttpMethod.POST, "/query", body.toString(), null);
    expect(r, 200);
    JsonNode tree = readTree(r);
    List<JsonNode> values = new ArrayList<>();
    tree.path("rows").forEach(row -> values.add(row.get("value")));
    return new Page(values, tree.path("total").asLong(values.size()));
  }

  public boolean healthy() {
    try {
      return send(HttpMethod.GET, "/healthz", null, null).getStatus() == 200;
    } catch (MeshException e) {
      return false;
    }
  }

  private ContentResponse send(HttpMethod method, String path, String body, String ifNoneMatch) {
    try {
      Request req = http.newRequest("http://localhost" + path).method(method).transport(transport)
          .timeout(TIMEOUT_MS, TimeUnit.MILLISECONDS);
      if (ifNoneMatch != null) {
        req.headers(h -> h.put("If-None-Match", ifNoneMatch));
      }
      if (body != null) {
        req.body(new StringRequestContent("application/json", body));
      }
      ContentResponse r = req.send();
      if (r.getStatus() == 503) {
        throw MeshException.unavailable("storage unavailable: " + r.getContentAsString(), null);
      }
      return r;
    } catch (MeshException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw MeshException.unavailable("interrupted while calling the kv-connector", e);
    } catch (Exception e) {
      throw MeshException.unavailable("kv-connector unreachable: " + e.getMessage(), e);
    }
  }

  private static void expect(ContentResponse r, int status) {
    if (r.getStatus() != status) {
      throw new MeshException(502, "bad_gateway", "kv-connector answered " + r.getStatus() + ": "
          + r.getContentAsString());
    }
  }

  private static JsonNode readTree(ContentResponse r) {
    return Json.read(r.getContent(), JsonNode.class);
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  @Override
  public void close() throws Exception {
    http.stop();
  }
}

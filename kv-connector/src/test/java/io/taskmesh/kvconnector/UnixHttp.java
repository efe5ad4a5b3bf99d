package io.taskmesh.kvconnector;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.io.Transport;

/**
 * A test client: real HTTP/1.1 over the connector's Unix socket (Jetty client, TCPUnix transport).
 */
final class UnixHttp implements AutoCloseable {
  record Resp(int status, String body, Map<String, String> headers) {}

  private final HttpClient client = new HttpClient();
  private final Transport transport;

  UnixHttp(Path socket) {
    this.transport = new Transport.TCPUnix(socket);
    client.setMaxConnectionsPerDestination(64);
    try {
      client.start();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  Resp send(String method, String path, String body, Map<String, String> headers) {
    try {
      Request r =
          client
              .newRequest("http://localhost" + path)
              .method(method)
              .transport(transport)
              .timeout(15, TimeUnit.SECONDS);
      headers.forEach((k, v) -> r.headers(h -> h.put(k, v)));
      if (body != null) {
        r.body(new StringRequestContent("application/json", body));
      }
      ContentResponse resp = r.send();
      Map<String, String> hs = new java.util.HashMap<>();
      resp.getHeaders()
          .forEach(f -> hs.put(f.getName().toLowerCase(java.util.Locale.ROOT), f.getValue()));
      return new Resp(resp.getStatus(), resp.getContentAsString(), hs);
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + path + " failed: " + e, e);
    }
  }

  /** A request with a body of raw bytes (which may not be UTF-8) and a Content-Type of choice. */
  Resp sendBytes(String method, String path, byte[] body, String contentType) {
    try {
      Request r =
          client
              .newRequest("http://localhost" + path)
              .method(method)
              .transport(transport)
              .timeout(15, TimeUnit.SECONDS);
      if (body != null) {
        r.body(new org.eclipse.jetty.client.BytesRequestContent(contentType, body));
      }
      ContentResponse resp = r.send();
      return new Resp(resp.getStatus(), resp.getContentAsString(), Map.of());
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + path + " failed: " + e, e);
    }
  }

  Resp send(String method, String path, String body) {
    return send(method, path, body, Map.of());
  }

  Resp get(String path) {
    return send("GET", path, null);
  }

  Resp put(String path, String body) {
    return send("PUT", path, body);
  }

  Resp post(String path, String body) {
    return send("POST", path, body);
  }

  Resp delete(String path) {
    return send("DELETE", path, null);
  }

  HttpClient jetty() {
    return client;
  }

  Transport transport() {
    return transport;
  }

  @Override
  public void close() throws Exception {
    client.stop();
  }
}

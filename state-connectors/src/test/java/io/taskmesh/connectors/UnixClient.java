package io.taskmesh.connectors;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Transport;

/** HTTP/1.1 over the connector's Unix socket (Jetty's client), as the runtime talks to it. */
final class UnixClient implements AutoCloseable {
  private final HttpClient http = new HttpClient();
  private final Transport transport;

  UnixClient(Path socket) throws Exception {
    transport = new Transport.TCPUnix(socket);
    http.setMaxConnectionsPerDestination(64);
    http.start();
  }

  Request request(HttpMethod method, String pathAndQuery) {
    return http.newRequest("http://localhost" + pathAndQuery)
        .method(method)
        .transport(transport)
        .timeout(60, TimeUnit.SECONDS);
  }

  ContentResponse send(Request request) throws Exception {
    return request.send();
  }

  ContentResponse get(String path) throws Exception {
    return send(request(HttpMethod.GET, path));
  }

  /** A GET whose body may exceed the client's default 2 MiB. */
  ContentResponse getLarge(String path, int maxBytes) throws Exception {
    return new CompletableResponseListener(request(HttpMethod.GET, path), maxBytes)
        .send()
        .get(60, TimeUnit.SECONDS);
  }

  ContentResponse head(String path) throws Exception {
    return send(request(HttpMethod.HEAD, path));
  }

  ContentResponse delete(String path) throws Exception {
    return send(request(HttpMethod.DELETE, path));
  }

  ContentResponse put(String path, String body) throws Exception {
    return put(path, body.getBytes(StandardCharsets.UTF_8));
  }

  /** A body with Content-Length (buffered mode). */
  ContentResponse put(String path, byte[] body) throws Exception {
    return send(
        request(HttpMethod.PUT, path)
            .body(new BytesRequestContent("application/octet-stream", body)));
  }

  /** A chunked body (passthrough mode). */
  ContentResponse putChunked(String path, InputStream body) throws Exception {
    return send(
        request(HttpMethod.PUT, path)
            .body(new InputStreamRequestContent("application/octet-stream", body)));
  }

  @Override
  public void close() throws Exception {
    http.stop();
  }
}

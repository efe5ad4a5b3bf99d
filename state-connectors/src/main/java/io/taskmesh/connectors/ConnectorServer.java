package io.taskmesh.connectors;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.taskmesh.connectors.StateBackend.StoredObject;
import io.taskmesh.connectors.StoreException.Kind;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The spec's connector HTTP protocol on a Unix socket, served by Javalin on Jetty's {@code
 * UnixDomainServerConnector} (JDK Unix sockets, no native library). The backends are blocking
 * clients; servlet streams let a request body go to the backend and an object to the caller without
 * holding either in memory.
 */
public final class ConnectorServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectorServer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path socket;
  private final StateBackend backend;
  private Javalin app;

  public ConnectorServer(Path socket, StateBackend backend) {
    this.socket = socket;
    this.backend = backend;
  }

  public ConnectorServer start() {
    try {
      Files.createDirectories(socket.toAbsolutePath().getParent());
      Files.deleteIfExists(socket); // a stale socket of an earlier run blocks the bind
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare " + socket, e);
    }
    app =
        Javalin.create(
            cfg -> {
              cfg.startup.showJavalinBanner = false;
              cfg.jetty.addConnector(
                  (server, http) -> {
                    UnixDomainServerConnector connector =
                        new UnixDomainServerConnector(server, new HttpConnectionFactory(http));
                    connector.setUnixDomainPath(socket);
                    return connector;
                  });
              cfg.routes.get("/healthz", ctx -> ctx.json(Map.of("status", "ready")));
              cfg.routes.get("/keys", this::list);
              cfg.routes.get("/keys/<key>", this::read);
              cfg.routes.head("/keys/<key>", this::stat);
              cfg.routes.put("/keys/<key>", this::write);
              cfg.routes.delete("/keys/<key>", this::delete);
              cfg.routes.get("/meta/<key>", this::getMeta);
              cfg.routes.put("/meta/<key>", this::putMeta);
              cfg.routes.exception(
                  StoreException.class,
                  (e, ctx) -> {
                    if (e.kind() == Kind.INTERNAL
                        || e.kind() == Kind.UNAVAILABLE
                        || e.kind() == Kind.TIMEOUT) {
                      LOG.warn("{} {}: {}", ctx.method(), ctx.path(), e.getMessage());
                    }
                    ctx.status(e.kind().status()).contentType("text/plain").result(e.getMessage());
                  });
            });
    app.jettyServer().server().setStopAtShutdown(false);
    app.start();
    try {
      Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-rw-rw-"));
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot set the mode of " + socket, e);
    }
    LOG.info("state connector listening on {}", socket);
    return this;
  }

  private void list(Context ctx) {
    String prefix = ctx.queryParam("prefix");
    String delimiter = ctx.queryParam("delimiter");
    StateBackend.Listing listing = backend.list(prefix == null ? "" : prefix, delimiter);
    ctx.json(Map.of("keys", listing.keys(), "prefixes", listing.prefixes()));
  }

  private void read(Context ctx) throws IOException {
    try (StoredObject object = backend.read(ctx.pathParam("key"))) {
      ctx.status(200);
      ctx.res().setContentLengthLong(object.length());
      ctx.res()
          .setContentType(
              object.contentType() == null ? "application/octet-stream" : object.contentType());
      OutputStream out = ctx.res().getOutputStream();
      object.body().transferTo(out);
      out.flush();
    }
  }

  private void stat(Context ctx) {
    StateBackend.Stat stat =
        backend
            .stat(ctx.pathParam("key"))
            .orElseThrow(() -> new StoreException(Kind.NOT_FOUND, "no such key"));
    ctx.status(200);
    ctx.res().setContentLengthLong(stat.size());
    ctx.header("X-Is-File", String.valueOf(stat.isFile()));
  }

  private void write(Context ctx) throws IOException {
    String ifNoneMatch = ctx.header("If-None-Match");
    if (ifNoneMatch != null && !"*".equals(ifNoneMatch.trim())) {
      throw new StoreException(Kind.BAD_REQUEST, "If-None-Match supports only '*'");
    }
    long length = ctx.req().getContentLengthLong();
    try (InputStream body = ctx.req().getInputStream()) {
      backend.write(
          ctx.pathParam("key"), body, length, ifNoneMatch != null, ctx.header("Content-Type"));
    }
    ctx.status(204);
  }

  private void delete(Context ctx) {
    backend.delete(ctx.pathParam("key"));
    ctx.status(204);
  }

  private void getMeta(Context ctx) {
    String key = ctx.pathParam("key");
    String attr = ctx.queryParam("attr");
    if (attr == null) {
      ctx.json(backend.attributes(key));
    } else {
      ctx.json(Map.of("value", backend.attribute(key, attr)));
    }
  }

  private void putMeta(Context ctx) {
    String attr = ctx.queryParam("attr");
    if (attr == null || attr.isEmpty()) {
      throw new StoreException(Kind.BAD_REQUEST, "query parameter attr is required");
    }
    JsonNode value;
    try {
      value = JSON.readTree(ctx.bodyAsBytes()).get("value");
    } catch (IOException | RuntimeException e) {
      throw new StoreException(Kind.BAD_REQUEST, "body must be JSON {\"value\": <string>}");
    }
    if (value == null || !value.isTextual()) {
      throw new StoreException(Kind.BAD_REQUEST, "body must be JSON {\"value\": <string>}");
    }
    backend.setAttribute(ctx.pathParam("key"), attr, value.asText());
    ctx.status(204);
  }

  /** The listening connectors (only the Unix socket: no TCP port is opened). */
  int connectorCount() {
    return app.jettyServer().server().getConnectors().length;
  }

  public Path socket() {
    return socket;
  }

  @Override
  public void close() {
    if (app != null) {
      app.stop();
      app = null;
    }
    try {
      Files.deleteIfExists(socket);
    } catch (IOException ignored) {
      // nothing left to do
    }
  }
}

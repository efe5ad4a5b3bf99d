package io.taskmesh.servicekit.ops;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.servicekit.Env;
import io.taskmesh.servicekit.Threads;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operations port of a service whose API is a Unix socket only (sidecar and crew actors,
 * kv-connector, state connectors): {@code GET /metrics}, {@code /ready} and {@code /health} on TCP
 * port {@value #PORT_VAR}, off when the variable is unset. The JDK's HTTP server: three tiny routes
 * need no framework, and the sidecar has none.
 */
public final class OpsServer implements AutoCloseable {
  public static final String PORT_VAR = "SVC_METRICS_PORT";
  public static final String HOST_VAR = "SVC_METRICS_HOST";

  private static final Logger LOG = LoggerFactory.getLogger(OpsServer.class);

  private final HttpServer server;
  private final ExecutorService pool;

  private OpsServer(HttpServer server, ExecutorService pool) {
    this.server = server;
    this.pool = pool;
  }

  /**
   * Starts the port when {@value #PORT_VAR} is set (0: any free port), on {@value #HOST_VAR}
   * (default 0.0.0.0, as a scraper runs elsewhere); null otherwise.
   */
  public static OpsServer startIfConfigured(Map<String, String> env, Readiness readiness) {
    Env e = Env.of(env);
    if (!e.isSet(PORT_VAR)) {
      return null;
    }
    int port = e.integer(PORT_VAR, 0, 0, 65535);
    return start(e.string(HOST_VAR, "0.0.0.0"), port, readiness);
  }

  public static OpsServer start(String host, int port, Readiness readiness) {
    HttpServer s;
    try {
      s = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      throw new IllegalStateException(
          PORT_VAR + ": cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
    s.createContext(
        "/metrics",
        x -> {
          ServiceMetrics.Scrape scrape =
              ServiceMetrics.scrape(x.getRequestHeaders().getFirst("Accept"));
          answer(x, 200, scrape.contentType(), scrape.body());
        });
    s.createContext(
        "/ready",
        x -> {
          Readiness.Answer a = readiness.check();
          answer(x, a.httpStatus(), "application/json", a.json().getBytes(StandardCharsets.UTF_8));
        });
    s.createContext(
        "/health", x -> answer(x, 200, "text/plain", "OK".getBytes(StandardCharsets.UTF_8)));
    ExecutorService pool = Threads.fixedPool("ops-http", 2);
    s.setExecutor(pool);
    s.start();
    LOG.info("metrics and readiness on http://{}:{}/metrics", host, s.getAddress().getPort());
    return new OpsServer(s, pool);
  }

  private static void answer(HttpExchange x, int status, String type, byte[] body)
      throws IOException {
    try (x) {
      String path = x.getRequestURI().getPath();
      if (!"GET".equals(x.getRequestMethod()) && !"HEAD".equals(x.getRequestMethod())) {
        x.getResponseHeaders().set("Allow", "GET, HEAD");
        x.sendResponseHeaders(405, -1);
        return;
      }
      if (!path.equals(x.getHttpContext().getPath())) { // the JDK matches contexts by prefix
        x.sendResponseHeaders(404, -1);
        return;
      }
      x.getResponseHeaders().set("Content-Type", type);
      boolean head = "HEAD".equals(x.getRequestMethod());
      x.sendResponseHeaders(status, head ? -1 : body.length);
      if (!head) {
        try (OutputStream out = x.getResponseBody()) {
          out.write(body);
        }
      }
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void close() {
    server.stop(0);
    pool.shutdownNow();
  }
}

package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.unixdomain.server.UnixDomainServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's HTTP/1.1 API on a Unix socket. Built, not started, by the constructor so that
 * {@link Main} and the tests share the wiring; {@link #start()} removes a stale socket file, binds
 * and applies the socket mode.
 */
public final class KvApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvApp.class);
  static final int MAX_KEY_LENGTH = 1024;
  /** Keep-alive connections idle this long are closed by the server (clients should drop theirs sooner). */
  public static final long IDLE_TIMEOUT_MS = 60_000;
  static final int MIN_THREADS = 4;
  static final int MAX_THREADS = 64;
  private static final ObjectMapper STRICT = JsonMapper.builder()
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .build();

  private final KvConfig config;
  private final KvStore store;
  private final QueryCompiler compiler;
  private final Javalin javalin;

  public KvApp(KvConfig config, KvStore store) {
    this.config = config;
    this.store = store;
    this.compiler = new QueryCompiler(config.indexes());
    this.javalin = Javalin.create(cfg -> {
      cfg.startup.showJavalinBanner = false;
      cfg.startup.showOldJavalinVersionWarning = false;
      cfg.http.maxRequestSize = config.maxBodyBytes();
      // a local socket: compressing small JSON answers only costs CPU (Javalin wraps every
      // response in its compression stream unless the strategy is NONE)
      cfg.http.compressionStrategy = CompressionStrategy.NONE;
      cfg.http.generateEtags = false;
      QueuedThreadPool pool = new QueuedThreadPool(MAX_THREADS, MIN_THREADS, 60_000);
      pool.setName("kv-connector");
      cfg.jetty.threadPool = pool;
      cfg.jetty.modifyHttpConfiguration(h -> {
        h.setSendServerVersion(false);
        h.setSendXPoweredBy(false);
        h.setSendDateHeader(false);
      });
      cfg.jetty.addConnector((server, httpConfig) -> {
        UnixDomainServerConnector c = new UnixDomainServerConnector(server, new HttpConnectionFactory(httpConfig));
        c.setUnixDomainPath(config.socket());
        c.setIdleTimeout(IDLE_TIMEOUT_MS);
        c.setAcceptQueueSize(256);
        return c;
      });
      // GET/HEAD/PUT/DELETE /keys/{key} are served in front of Javalin (its servlet context
      // becomes this wrapper's child); the other routes are Javalin's
      cfg.jetty.modifyServer(server -> server.setHandler(new KeyRoutes(store, config.maxBodyBytes())));
      cfg.routes.get("/healthz", this::health);
      cfg.routes.get("/keys/", this::list);
      cfg.routes.post("/query", this::query);
      cfg.routes.exception(Exception.class, this::onError);
      // Javalin's own "no such route" / "method not allowed" answers get the same {error, message}
      cfg.routes.error(404, "*", ctx -> jsonIfPlain(ctx, "not_found"));
      cfg.routes.error(405, "*", ctx -> jsonIfPlain(ctx, "method_not_allowed"));
    });
  }

  public Javalin javalin() {
    return javalin;
  }

  public KvApp start() {
    try {
      UnixSocketFiles.removeStale(config.socket());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    javalin.start();
    try {
      Files.setPosixFilePermissions(config.socket(), config.socketMode());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot set the mode of " + config.socket(), e);
    }
    LOG.info("kv-connector listening on {}", config.socket());
    return this;
  }

  @Override
  public void close() {
    javalin.stop();
    try {
      Files.deleteIfExists(config.socket());
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  // ---- handlers

  private void health(Context ctx) {
    if (store.ping()) {
      json(ctx, 200, "{\"status\":\"ready\"}");
    } else {
      throw KvException.unavailable("database unavailable");
    }
  }

  private void list(Context ctx) throws SQLException {
    String prefix = Optional.ofNullable(ctx.queryParam("prefix")).orElse("");
    String delimiter = ctx.queryParam("delimiter");
    if (delimiter != null && delimiter.isEmpty()) {
      delimiter = null;
    }
    Long limit = null;
    String rawLimit = ctx.queryParam("limit");
    if (rawLimit != null) {
      try {
        limit = Long.parseLong(rawLimit);
      } catch (NumberFormatException e) {
        limit = -1L;
      }
      if (limit < 0) {
        throw KvException.badRequest("'limit' must be a non-negative integer");
      }
    }
    KvStore.Listing l = store.list(prefix, delimiter, limit);
    json(ctx, 200, toJson(Map.of("keys", l.keys(), "prefixes", l.prefixes())));
  }

  private void query(Context ctx) throws SQLException {
    String body = jsonBody(ctx);
    JsonNode tree;
    try {
      tree = STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw KvException.badRequest("invalid JSON: " + e.getOriginalMessage());
    }
    Query q = compiler.compile(tree);
    KvStore.QueryResult r = store.query(q);
    StringBuilder sb = new StringBuilder(256).append("{\"rows\":[");
    List<KvRecord> rows = r.rows();
    for (int i = 0; i < rows.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      rows.get(i).appendTo(sb);
    }
    sb.append(']');
    if (r.total() != null) {
      sb.append(",\"total\":").append(r.total());
    }
    json(ctx, 200, sb.append('}').toString());
  }

  // ---- input checks

  /** 400 unless the decoded key has 1..{@link #MAX_KEY_LENGTH} characters and no control characters. */
  static String checkedKey(String key) {
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw KvException.badRequest("key must be 1.." + MAX_KEY_LENGTH + " characters");
    }
    for (int i = 0; i < key.length(); i++) {
      if (Character.isISOControl(key.charAt(i))) {
        throw KvException.badRequest("key must not contain control characters");
      }
    }
    return key;
  }

  private String jsonBody(Context ctx) {
    try {
      return JsonBodies.read(ctx.req().getInputStream(), ctx.req().getContentLengthLong(), config.maxBodyBytes());
    } catch (IOException e) {
      throw KvException.badRequest("cannot read the request body: " + e.getMessage());
    }
  }

  // ---- output and errors

  /**
   * Writes the answer straight to the response with its Content-Length. ({@code ctx.result(String)}
   * would go through an InputStream that Javalin copies with a fresh 8 KiB buffer per response.)
   */
  private static void json(Context ctx, int status, String body) {
    if (status >= 400) {
      // errors keep Javalin's own write path (e.g. a 413 sent while the client is still uploading)
      ctx.status(status).contentType("application/json").result(body);
      return;
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ctx.status(status).contentType("application/json");
    ctx.res().setContentLength(bytes.length);
    try {
      ctx.res().getOutputStream().write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException("client went away", e);
    }
  }

  private static void jsonIfPlain(Context ctx, String error) {
    String type = ctx.res().getContentType();
    if (type == null || !type.startsWith("application/json")) {
      String msg = ctx.result();
      json(ctx, ctx.statusCode(), ErrorAnswer.json(error, msg == null || msg.isBlank()
          ? "no route for " + ctx.method() + " " + ctx.path() : msg));
    }
  }


  private static String toJson(Object o) {
    try {
      return STRICT.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Errors to {@code {error, message}} answers, through the mapping shared with {@link KeyRoutes}. */
  private void onError(Exception e, Context ctx) {
    ErrorAnswer a = ErrorAnswer.of(e, ctx.method().name(), ctx.path());
    if (a.retryAfter()) {
      ctx.header("Retry-After", "1");
    }
    json(ctx, a.status(), a.body());
  }
}

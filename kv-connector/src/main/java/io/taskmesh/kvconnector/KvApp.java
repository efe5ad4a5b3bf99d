package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.javalin.Javalin;
import io.javalin.compression.CompressionStrategy;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
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
      cfg.routes.get("/healthz", this::health);
      cfg.routes.get("/keys/", this::list);
      cfg.routes.get("/keys/<key>", this::get);
      cfg.routes.head("/keys/<key>", this::head);
      cfg.routes.put("/keys/<key>", this::put);
      cfg.routes.delete("/keys/<key>", this::delete);
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

  private void get(Context ctx) throws SQLException {
    String key = key(ctx);
    KvRecord r = store.get(key).orElseThrow(() -> KvException.notFound("key '" + key + "' not found"));
    json(ctx, 200, r.toJson());
  }

  private void head(Context ctx) throws SQLException {
    String key = key(ctx);
    if (!store.exists(key)) {
      ctx.status(404);
      return;
    }
    ctx.header("X-Is-File", "true");
    ctx.status(200);
  }

  private void put(Context ctx) throws SQLException {
    String key = key(ctx);
    String json = jsonBody(ctx);
    String ifStatus = ctx.queryParam("if_status");
    boolean createOnly = "*".equals(ctx.header("If-None-Match"));
    if (ifStatus != null && createOnly) {
      throw KvException.badRequest("if_status and If-None-Match: * cannot be combined");
    }
    KvStore.PutResult r;
    if (ifStatus != null) {
      Optional<KvStore.PutResult> done = store.putIfStatus(key, json, ifStatus);
      if (done.isEmpty()) {
        Optional<String> stored = store.storedStatus(key);
        throw new KvException(409, "conflict", stored.isEmpty()
            ? "key '" + key + "' does not exist"
            : "stored status is '" + stored.get() + "', not '" + ifStatus + "'");
      }
      r = done.get();
    } else if (createOnly) {
      r = store.create(key, json).orElseThrow(() ->
          new KvException(412, "precondition_failed", "key '" + key + "' already exists"));
    } else {
      r = store.upsert(key, json);
    }
    StringBuilder sb = new StringBuilder("{\"key\":\"");
    JsonStringEncoder.getInstance().quoteAsString(key, sb);
    sb.append("\",\"created_at\":\"").append(r.createdAt()).append("\",\"updated_at\":\"")
        .append(r.updatedAt()).append("\"}");
    json(ctx, r.created() ? 201 : 200, sb.toString());
  }

  private void delete(Context ctx) throws SQLException {
    String key = key(ctx);
    if (!store.delete(key)) {
      throw KvException.notFound("key '" + key + "' not found");
    }
    ctx.status(204);
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

  private static String key(Context ctx) {
    String key = ctx.pathParam("key");
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

  /** Reads at most maxBodyBytes (413 beyond) and checks that it is exactly one JSON value. */
  private String jsonBody(Context ctx) {
    long declared = ctx.req().getContentLengthLong();
    byte[] bytes;
    try (InputStream in = ctx.req().getInputStream()) {
      if (declared > config.maxBodyBytes()) {
        drainSomeOf(in);
        throw KvException.tooLarge(config.maxBodyBytes());
      }
      bytes = in.readNBytes(config.maxBodyBytes() + 1);
      if (bytes.length > config.maxBodyBytes()) {
        drainSomeOf(in);
        throw KvException.tooLarge(config.maxBodyBytes());
      }
    } catch (IOException e) {
      throw KvException.badRequest("cannot read the request body: " + e.getMessage());
    }
    if (bytes.length == 0) {
      throw KvException.badRequest("the request body must be a JSON document, got an empty body");
    }
    checkOneJsonValue(bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Bytes read and thrown away after an over-limit body, so a client still uploading gets its 413. */
  private static final int DRAIN_LIMIT = 256 * 1024;

  /**
   * Reads and discards up to {@link #DRAIN_LIMIT} more bytes of an over-limit body. Without it the
   * server answers 413 and closes while a slightly-too-large upload is still being written, and the
   * client sees a broken pipe instead of the 413. Larger bodies are cut off (the connection closes).
   */
  private static void drainSomeOf(InputStream in) {
    try {
      byte[] sink = new byte[8192];
      int total = 0;
      int n;
      while (total < DRAIN_LIMIT && (n = in.read(sink, 0, Math.min(sink.length, DRAIN_LIMIT - total))) >= 0) {
        total += n;
      }
    } catch (IOException e) {
      // the client stopped sending: nothing left to drain
    }
  }

  /**
   * 400 unless {@code bytes} is exactly one JSON value. Streams the tokens (no tree is built):
   * every token is still tokenized and checked, so malformed JSON anywhere is found.
   */
  static void checkOneJsonValue(byte[] bytes) {
    try (JsonParser p = STRICT.getFactory().createParser(bytes)) {
      if (p.nextToken() == null) {
        throw KvException.badRequest("the request body must be a JSON document, got only whitespace");
      }
      p.skipChildren();
      JsonToken trailing = p.nextToken();
      if (trailing != null) {
        throw KvException.badRequest("the request body is not valid JSON: trailing token " + trailing
            + " after the first value");
      }
    } catch (IOException e) {
      String msg = e instanceof JsonProcessingException jpe ? jpe.getOriginalMessage() : e.getMessage();
      throw KvException.badRequest("the request body is not valid JSON: " + msg);
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
      json(ctx, ctx.statusCode(), errorJson(error, msg == null || msg.isBlank()
          ? "no route for " + ctx.method() + " " + ctx.path() : msg));
    }
  }

  static String errorJson(String error, String message) {
    return toJson(Map.of("error", error, "message", message == null ? error : message));
  }

  private static String toJson(Object o) {
    try {
      return STRICT.writeValueAsString(o);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The one mapping from errors to responses: {@code {error, message}}. */
  private void onError(Exception e, Context ctx) {
    int status;
    String error;
    String message;
    if (e instanceof KvException k) {
      status = k.status();
      error = k.error();
      message = k.getMessage();
    } else if (e instanceof HttpResponseException h) {
      status = h.getStatus();
      error = switch (status) {
        case 404 -> "not_found";
        case 405 -> "method_not_allowed";
        case 413 -> "payload_too_large";
        default -> status >= 500 ? "internal" : "bad_request";
      };
      message = h.getMessage();
    } else if (e instanceof SQLException sql && isUnavailable(sql)) {
      status = 503;
      error = "unavailable";
      message = "database unavailable: " + firstLine(sql.getMessage());
      ctx.header("Retry-After", "1");
    } else if (e instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("22")) {
      status = 400;
      error = "bad_request";
      message = "value rejected by the database: " + firstLine(sql.getMessage());
    } else {
      LOG.error("unexpected error on {} {}", ctx.method(), ctx.path(), e);
      status = 500;
      error = "internal";
      message = "internal error: " + e.getClass().getSimpleName();
    }
    if (status == 503) {
      LOG.warn("503 on {} {}: {}", ctx.method(), ctx.path(), message);
    }
    json(ctx, status, errorJson(error, message));
  }

  static boolean isUnavailable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String st = s.getSQLState();
        if (st.startsWith("08") || st.startsWith("57P") || st.startsWith("53")) {
          return true;
        }
      }
    }
    return false;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}

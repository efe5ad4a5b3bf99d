package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.taskmesh.servicekit.ApiException;
import io.taskmesh.servicekit.JsonErrors;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connector's HTTP/1.1 API on a Unix socket, served by Vert.x. One server per event loop
 * ({@link KvConfig#eventLoops()}; connections are spread over the loops); the key routes ({@link
 * KeyRoutes}) run on the loop with the reactive Postgres client, the others ({@code /healthz}
 * aside) on worker threads with {@link KvStore} (pgjdbc), whose SQL is built per request. The
 * constructor only keeps the wiring, so that {@link Main} and the tests share it; {@link #start()}
 * removes a stale socket file, binds and applies the socket mode.
 */
public final class KvApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvApp.class);
  static final int MAX_KEY_LENGTH = 1024;

  /**
   * Keep-alive connections idle this long are closed by the server (clients should drop theirs
   * sooner).
   */
  public static final long IDLE_TIMEOUT_MS = 60_000;

  /** A percent-encoded key of 1024 characters can take ~9 KiB of request line. */
  static final int MAX_REQUEST_LINE = 16 * 1024;

  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  private final KvConfig config;
  private final KvStore store;
  private final QueryCompiler compiler;
  private Vertx vertx;

  public KvApp(KvConfig config, KvStore store) {
    this.config = config;
    this.store = store;
    this.compiler = new QueryCompiler(config.indexes());
  }

  public KvApp start() {
    try {
      UnixSocketFiles.removeStale(config.socket());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    vertx =
        Vertx.vertx(
            new VertxOptions()
                .setPreferNativeTransport(true)
                .setEventLoopPoolSize(config.eventLoops())
                // no .vertx cache directory in the working directory: this server serves no files
                .setFileSystemOptions(
                    new FileSystemOptions()
                        .setFileCachingEnabled(false)
                        .setClassPathResolvingEnabled(false)));
    try {
      if (!vertx.isNativeTransportEnabled()) {
        throw new IllegalStateException(
            "Unix sockets need Netty's native epoll transport, which did not load",
            vertx.unavailableNativeTransportCause());
      }
      // each loop gets its share of the connections (at least one)
      int perLoop = Math.max(1, config.poolSize() / config.eventLoops());
      await(
          vertx.deployVerticle(
              () -> new Server(perLoop),
              new DeploymentOptions().setInstances(config.eventLoops())));
      Files.setPosixFilePermissions(config.socket(), config.socketMode());
    } catch (IOException e) {
      close();
      throw new UncheckedIOException("cannot set the mode of " + config.socket(), e);
    } catch (RuntimeException e) {
      close();
      throw e;
    }
    LOG.info("kv-connector listening on {} ({} event loops)", config.socket(), config.eventLoops());
    return this;
  }

  @Override
  public void close() {
    if (vertx != null) {
      try {
        await(vertx.close());
      } catch (RuntimeException e) {
        LOG.warn("stopping the server: {}", e.toString());
      }
      vertx = null;
    }
    try {
      Files.deleteIfExists(config.socket());
    } catch (IOException ignored) {
      // nothing to do
    }
  }

  private static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("the server did not start or stop within 30 s", e);
    }
  }

  /** One event loop's server, with that loop's database connections. */
  private final class Server extends AbstractVerticle {
    private final int connections;
    private KeyStatements db;
    private KeyRoutes keys;

    Server(int connections) {
      this.connections = connections;
    }

    @Override
    public void start(Promise<Void> started) {
      db = new KeyStatements(vertx, context, config, connections);
      keys = new KeyRoutes(db, config.maxBodyBytes());
      HttpServerOptions options =
          new HttpServerOptions()
              .setIdleTimeout((int) IDLE_TIMEOUT_MS)
              .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
              .setAcceptBacklog(256)
              .setMaxInitialLineLength(MAX_REQUEST_LINE)
              .setHandle100ContinueAutomatically(true)
              .setCompressionSupported(false)
              // every answer is written on the event loop that read its request (the worker-thread
              // routes complete their futures back on it), so writes skip Vert.x's cross-thread
              // queue
              .setStrictThreadMode(true);
      vertx
          .createHttpServer(options)
          .requestHandler(this::route)
          .listen(SocketAddress.domainSocketAddress(config.socket().toString()))
          .<Void>mapEmpty()
          .onComplete(started);
    }

    @Override
    public void stop(Promise<Void> stopped) {
      db.close().onComplete(stopped);
    }

    private void route(HttpServerRequest req) {
      KvMetrics.time(req);
      try {
        String path = req.path();
        if (path.startsWith(KeyRoutes.PREFIX) && path.length() > KeyRoutes.PREFIX.length()) {
          keys.handle(req, path);
          return;
        }
        String method = req.method().name();
        switch (path) {
          // a failed ping is a 503 naming the cause (KeyStatements turns it into "database
          // unavailable: ...")
          case "/healthz" ->
              only(
                  req,
                  "GET",
                  () ->
                      Answers.reply(
                          req, db.ping().map(v -> Answers.ok(200, "{\"status\":\"ready\"}"))));
          case "/keys/", "/keys" ->
              only(
                  req,
                  "GET",
                  () -> {
                    // the request is read on this loop; only the statement runs on a worker thread
                    Listing listing = listing(req);
                    Answers.reply(req, vertx.executeBlocking(() -> list(listing), false));
                  });
          case "/query" ->
              only(
                  req,
                  "POST",
                  () ->
                      Answers.readBody(
                          req,
                          config.maxBodyBytes(),
                          body -> vertx.executeBlocking(() -> query(body), false)));
          default -> throw ApiException.notFound("no route for " + method + " " + path);
        }
      } catch (RuntimeException e) {
        Answers.error(req, e);
      }
    }

    private void only(HttpServerRequest req, String method, Runnable serve) {
      if (!req.method().name().equals(method)) {
        throw new ApiException(
            405, "method_not_allowed", "no route for " + req.method().name() + " " + req.path());
      }
      serve.run();
    }
  }

  // ---- the routes served on worker threads

  /** {@code GET /keys/} parameters, checked. */
  private record Listing(String prefix, String delimiter, Long limit) {}

  private static Listing listing(HttpServerRequest req) {
    String prefix;
    String delimiter;
    String rawLimit;
    PercentDecoding.checkQuery(req.query());
    try {
      prefix = Optional.ofNullable(req.getParam("prefix")).orElse("");
      delimiter = req.getParam("delimiter");
      rawLimit = req.getParam("limit");
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("the query string is not validly percent-encoded");
    }
    if (delimiter != null && delimiter.isEmpty()) {
      delimiter = null;
    }
    Long limit = null;
    if (rawLimit != null) {
      try {
        limit = Long.parseLong(rawLimit);
      } catch (NumberFormatException e) {
        limit = -1L;
      }
      if (limit < 0) {
        throw ApiException.badRequest("'limit' must be a non-negative integer");
      }
    }
    return new Listing(prefix, delimiter, limit);
  }

  private Answers.Answer list(Listing q) throws Exception {
    KvStore.Listing l = store.list(q.prefix(), q.delimiter(), q.limit());
    return Answers.ok(
        200, STRICT.writeValueAsString(Map.of("keys", l.keys(), "prefixes", l.prefixes())));
  }

  private Answers.Answer query(String body) throws Exception {
    JsonNode tree;
    try {
      tree = STRICT.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(JsonErrors.describe("request body", e));
    }
    KvStore.QueryResult r = store.query(compiler.compile(tree));
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
    return Answers.ok(200, sb.append('}').toString());
  }

  // ---- input checks

  /**
   * 400 unless the decoded key has 1..{@link #MAX_KEY_LENGTH} characters and no control characters.
   */
  static String checkedKey(String key) {
    if (key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
      throw ApiException.badRequest("key must be 1.." + MAX_KEY_LENGTH + " characters");
    }
    for (int i = 0; i < key.length(); i++) {
      if (Character.isISOControl(key.charAt(i))) {
        throw ApiException.badRequest("key must not contain control characters");
      }
    }
    return key;
  }
}

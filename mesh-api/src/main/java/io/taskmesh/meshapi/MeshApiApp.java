package io.taskmesh.meshapi;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.MethodNotAllowedResponse;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import io.taskmesh.servicekit.ApiException;
import io.taskmesh.servicekit.JsonErrors;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.ops.Readiness;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriters;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * mesh-api: the external Javalin (create, list, get, cancel, SSE) and the internal one (events from
 * sidecars, heartbeat get). Built by the constructor, started by {@link #start()}; Main and the
 * tests share this wiring.
 */
public final class MeshApiApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MeshApiApp.class);

  /** Request body limit (create and events; the spec's FLY limit). */
  public static final int MAX_BODY_BYTES = 1024 * 1024;

  /** Bytes of an over-limit body read and dropped before the 413, so that the client reads it. */
  static final int DRAIN_LIMIT = 256 * 1024;

  private static final ObjectMapper STRICT =
      JsonMapper.builder().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();

  private final MeshConfig config;
  private final MeshService service;
  private final EventBus bus;
  private final Javalin external;
  private final Javalin internal;
  private final Set<SseStream> streams = ConcurrentHashMap.newKeySet();
  private final SseWriters sseWriters;
  private final ScheduledExecutorService timers = Threads.scheduler("mesh-api-timer", 2);
  private volatile boolean closing;
  private volatile String gatewayUrl;
  private final Readiness readiness;

  public MeshApiApp(MeshConfig config, ConnectorClient kv, EventBus bus) {
    this.config = config;
    this.bus = bus;
    this.readiness = MeshApiOps.readiness(config, kv);
    this.sseWriters =
        new SseWriters("mesh-api-sse", 0, SsePolicy.MESH_EVENTS.withKeepalive(config.keepalive()));
    this.service = new MeshService(kv, bus, () -> gatewayUrl, config.namespace(), Instant::now);
    String mesh = config.prefix() + "/mesh";
    this.external =
        Javalin.create(
            cfg -> {
              common(cfg);
              cfg.routes.post(mesh, this::create);
              cfg.routes.get(mesh, this::list);
              cfg.routes.get(mesh + "/{id}", this::get);
              cfg.routes.delete(mesh + "/{id}", this::cancel);
              cfg.routes.get(mesh + "/{id}/events", this::events);
              cfg.routes.get(
                  "/openapi.json",
                  ctx -> ctx.contentType("application/json").result(ApiDocument.openApiJson()));
            });
    this.internal =
        Javalin.create(
            cfg -> {
              common(cfg);
              cfg.routes.post(mesh + "/{id}/events", this::publish);
              cfg.routes.get(mesh + "/{id}", this::get);
            });
  }

  private void common(JavalinConfig cfg) {
    cfg.startup.showJavalinBanner = false;
    cfg.startup.showOldJavalinVersionWarning = false;
    cfg.http.maxRequestSize = MAX_BODY_BYTES;
    cfg.http.asyncTimeout = 0;
    // a known path asked with a method it does not serve is 405 with Allow (RFC 9110), not 404
    cfg.http.prefer405over404 = true;
    cfg.jetty.host = config.bindHost();
    cfg.routes.get("/health", ctx -> ctx.contentType("text/plain").result("OK"));
    MeshApiOps.mount(cfg, readiness);
    cfg.routes.exception(Exception.class, this::onError);
    cfg.routes.error(404, "*", ctx -> jsonIfPlain(ctx, "not_found"));
    cfg.routes.error(405, "*", ctx -> jsonIfPlain(ctx, "method_not_allowed"));
  }

  public MeshApiApp start() {
    external.start(config.bindHost(), config.externalPort());
    internal.start(config.bindHost(), config.internalPort());
    String base =
        config.internalUrl() != null ? config.internalUrl() : "http://127.0.0.1:" + internal.port();
    gatewayUrl = base + config.prefix();
    long scan = config.deadlineScan().toMillis();
    timers.scheduleWithFixedDelay(this::deadlineScan, scan, scan, TimeUnit.MILLISECONDS);
    LOG.info(
        "mesh-api external port {}, internal port {}, x-svc-gateway-url {}",
        external.port(),
        internal.port(),
        gatewayUrl);
    return this;
  }

  public int externalPort() {
    return external.port();
  }

  public int internalPort() {
    return internal.port();
  }

  /** The two Javalin apps, for tests that compare their routes with docs/api/openapi.json. */
  Javalin externalApp() {
    return external;
  }

  Javalin internalApp() {
    return internal;
  }

  /** What envelopes carry in {@code x-svc-gateway-url}: internal base URL + prefix. */
  public String gatewayUrl() {
    return gatewayUrl;
  }

  public MeshService service() {
    return service;
  }

  int openStreams() {
    return streams.size();
  }

  private void deadlineScan() {
    try {
      int n;
      do {
        n = service.failOverdue(100);
        if (n > 0) {
          LOG.info("deadline backstop failed {} envelope(s)", n);
        }
      } while (n == 100);
    } catch (RuntimeException e) {
      if (closing) {
        return; // close() interrupted the scan: the connector call failing then is no fault
      }
      LOG.warn("deadline scan failed: {}", e.getMessage());
    }
  }

  // ---- handlers

  private void create(Context ctx) {
    JsonNode body = body(ctx, true);
    MeshService.CreateRequest req =
        service.parseCreate(ctx.queryParam("actor"), ctx.queryParam("namespace"), body);
    String id = service.create(req);
    ctx.status(201).contentType("application/json").result(Json.write(Map.of("id", id)));
  }

  private void list(Context ctx) {
    ctx.contentType("application/json")
        .result(
            Json.write(
                service.list(
                    ctx.queryParam("status"), ctx.queryParam("limit"), ctx.queryParam("offset"))));
  }

  private void get(Context ctx) {
    ctx.contentType("application/json").result(Json.write(service.get(ctx.pathParam("id"))));
  }

  private void cancel(Context ctx) {
    service.cancel(ctx.pathParam("id"));
    ctx.status(204);
  }

  /**
   * A sidecar's event. An applied status is answered 204 first and fanned out right after: the one
   * record the fan-out produces wakes the producer's, the broker's and every replica's feed threads
   * at once, and published before the answer they competed with it for the two cores here
   * (MeshLatencyBench breakdown). Status events need no order among themselves (each stream keeps
   * them in MeshStatus order). A FLY event is still published before its answer: a sidecar's next
   * event cannot overtake it on this replica, so FLY text keeps its order and is never cut off by a
   * later terminal status.
   */
  private void publish(Context ctx) throws IOException {
    Optional<MeshEvent> event = service.acceptEvent(ctx.pathParam("id"), body(ctx, false));
    boolean status = event.filter(e -> MeshEvent.STATUS.equals(e.type())).isPresent();
    if (event.isPresent() && !status) {
      bus.publish(event.get());
    }
    ctx.status(204);
    if (status) {
      try {
        ctx.res().flushBuffer();
      } finally {
        // stored: its SSE clients get it even when this sidecar went away before the answer
        bus.publish(event.get());
      }
    }
  }

  /**
   * SSE of one envelope. One store read serves both the 404 check and the first event: the stream
   * subscribes before it (so nothing published meanwhile is lost) and unsubscribes on 404. An
   * envelope already terminal gets its one event as a plain response (headers and event in one
   * write), without the writer thread and the async response of a live stream.
   */
  private void events(Context ctx) {
    String id = ctx.pathParam("id");
    if (!MeshService.validId(id)) {
      throw MeshService.envelopeNotFound(id);
    }
    HttpServletResponse res = ctx.res();
    OutputStream out;
    try {
      out = res.getOutputStream();
    } catch (IOException e) {
      throw ApiException.badRequest("the client went away");
    }
    AutoCloseable[] subscription = new AutoCloseable[1];
    SseStream stream = new SseStream(out, sseWriters, () -> unsubscribe(subscription[0]));
    subscription[0] = bus.subscribe(id, stream);
    JsonNode current;
    try {
      current = service.find(id).orElseThrow(() -> MeshService.envelopeNotFound(id));
    } catch (RuntimeException e) {
      unsubscribe(subscription[0]);
      throw e;
    }
    ObjectNode first = MeshService.statusEvent(current);
    res.setStatus(200);
    res.setCharacterEncoding("UTF-8");
    res.setContentType("text/event-stream");
    res.setHeader("Cache-Control", "no-cache");
    res.setHeader("X-Accel-Buffering", "no");
    if (MeshStatus.find(first.path("status").asText()).map(MeshStatus::isTerminal).orElse(false)) {
      unsubscribe(subscription[0]);
      ctx.result(SseStream.frame("status", Json.write(first), null));
      return;
    }
    try {
      // headers committed on the request thread, before the response goes async
      res.flushBuffer();
    } catch (IOException e) {
      unsubscribe(subscription[0]);
      throw ApiException.badRequest("the client went away");
    }
    streams.add(stream);
    stream.done().whenComplete((v, e) -> streams.remove(stream));
    stream.start(new MeshEvent(id, MeshEvent.STATUS, first));
    ctx.future(stream::done);
  }

  // ---- body, output and errors

  private static ApiException tooLarge() {
    return ApiException.tooLarge(MAX_BODY_BYTES);
  }

  /**
   * Reads and drops up to {@link #DRAIN_LIMIT} more bytes of an over-limit body. Answering 413
   * while the client is still uploading makes the server close a connection with unread input, and
   * the client may then see a reset instead of its 413 (seen in CI: "header parser received no
   * bytes").
   */
  private static void drainSomeOf(InputStream in) {
    try {
      in.readNBytes(DRAIN_LIMIT);
    } catch (IOException e) {
      // the client stopped sending: nothing left to drain, the 413 still goes out
    }
  }

  /**
   * At most {@link #MAX_BODY_BYTES} (413 beyond), exactly one JSON value; empty allowed for create.
   */
  private static JsonNode body(Context ctx, boolean emptyAllowed) {
    long declared = ctx.req().getContentLengthLong();
    byte[] bytes;
    try (InputStream in = ctx.req().getInputStream()) {
      if (declared > MAX_BODY_BYTES) {
        if (declared <= MAX_BODY_BYTES + DRAIN_LIMIT) {
          drainSomeOf(in);
        }
        throw tooLarge();
      }
      bytes = in.readNBytes(MAX_BODY_BYTES + 1);
      if (bytes.length > MAX_BODY_BYTES) {
        drainSomeOf(in);
        throw tooLarge();
      }
    } catch (IOException e) {
      throw ApiException.badRequest("the request body could not be read to its end");
    }
    try {
      JsonNode n = bytes.length == 0 ? null : STRICT.readTree(bytes);
      if (n == null || n.isMissingNode()) {
        if (emptyAllowed) {
          return null;
        }
        throw ApiException.badRequest("the request body must be a JSON object");
      }
      return n;
    } catch (IOException e) {
      throw ApiException.badRequest(JsonErrors.describe("request body", e));
    }
  }

  private static void jsonIfPlain(Context ctx, String error) {
    String type = ctx.res().getContentType();
    if (type == null || !type.startsWith("application/json")) {
      String msg = ctx.result();
      ctx.contentType("application/json")
          .result(
              Json.write(
                  Map.of(
                      "error",
                      error,
                      "message",
                      msg == null || msg.isBlank()
                          ? "no route for " + ctx.method() + " " + ctx.path()
                          : msg)));
    }
  }

  /** The one mapping from errors to responses: {@code {error, message}} JSON. */
  private void onError(Exception e, Context ctx) {
    int status;
    String error;
    String message;
    if (e instanceof ApiException m) {
      status = m.status();
      error = m.error();
      message = m.getMessage();
      if (status >= 500) {
        // the cause (a socket failure, say) is for the log; the client reads our words only
        LOG.warn(
            "{} on {} {}: {}{}",
            status,
            ctx.method(),
            ctx.path(),
            message,
            m.getCause() == null ? "" : " (" + m.getCause() + ")");
      }
    } else if (e instanceof HttpResponseException h) {
      status = h.getStatus();
      if (h instanceof MethodNotAllowedResponse) {
        ctx.header("Allow", h.getDetails().getOrDefault("availableMethods", ""));
      }
      error =
          status == 404
              ? "not_found"
              : status == 405
                  ? "method_not_allowed"
                  : status == 413
                      ? "payload_too_large"
                      : status >= 500 ? "internal" : "bad_request";
      message = h.getMessage();
    } else {
      LOG.error("unexpected error on {} {}", ctx.method(), ctx.path(), e);
      status = 500;
      error = "internal";
      message = "internal error";
    }
    if (status == 503) {
      ctx.header("Retry-After", "1");
    }
    ctx.status(status)
        .contentType("application/json")
        .result(Json.write(Map.of("error", error, "message", message)));
  }

  private static void unsubscribe(AutoCloseable subscription) {
    try {
      subscription.close();
    } catch (Exception e) {
      LOG.warn("unsubscribing an SSE client failed: {}", e.toString());
    }
  }

  @Override
  public void close() {
    closing = true;
    readiness.drain();
    timers.shutdownNow();
    drainSse();
    // every SSE client is ended, and its writer threads stopped, while the servers still run: once
    // they stop, the responses are recycled and a late write would find them gone
    streams.forEach(SseStream::close);
    sseWriters.close();
    external.stop();
    internal.stop();
    readiness.close();
  }

  /** Shutdown: SSE clients are told to reconnect after a second (to another replica). */
  private void drainSse() {
    try {
      sseWriters.finishAllWithRetry(Duration.ofSeconds(1), Duration.ofSeconds(5));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

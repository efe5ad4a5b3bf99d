package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import io.taskmesh.schemas.Progress;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.servicekit.Threads;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports to the gateway's legacy mesh routes ({@code /mesh/{id}/progress|final|fly}), or, when the
 * envelope carries {@code x-svc-gateway-protocol: events} (mesh-api stamps it), to mesh-api's
 * {@code POST {url}/mesh/{id}/events} with {@code {type: status|fly, ...}} bodies.
 *
 * <p>Progress and FLY go through ordered lanes: bounded queues, each drained by one thread. A
 * task's reports always take the same lane, so they keep their order; different tasks' reports are
 * sent in parallel. A full queue or a failed POST is logged and dropped. {@link #awaitSent} lets
 * the sidecar wait for them before a commit. Final reports are sent synchronously with a few
 * retries, since they end the task.
 */
public final class GatewayReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GatewayReporter.class);

  /** Report lanes: one sequential HTTP/1.1 sender caps a sidecar at one report per round trip. */
  static final int LANES = 4;

  private final String defaultUrl;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final Lane[] lanes = new Lane[LANES];
  private volatile boolean closed;

  public GatewayReporter(String defaultUrl) {
    this.defaultUrl = defaultUrl;
    for (int i = 0; i < LANES; i++) {
      lanes[i] = new Lane("gateway-reporter-" + i);
    }
  }

  /** One ordered lane: a bounded queue and the thread that sends it. */
  private final class Lane {
    /**
     * HTTP requests, and markers ({@link CompletableFuture}) a caller waits on to see the lane
     * drained up to them.
     */
    final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(10_000 / LANES);

    /**
     * Requests queued and not yet sent or failed (one may be in flight while the queue is empty).
     */
    final AtomicInteger unsent = new AtomicInteger();

    final Thread sender;

    Lane(String name) {
      sender = Threads.startDaemon(name, this::drain);
    }

    private void drain() {
      while (!closed || !queue.isEmpty()) {
        Object item;
        try {
          item = queue.take(); // close() queues a marker to wake an idle lane
        } catch (InterruptedException e) {
          return;
        }
        if (item instanceof CompletableFuture<?> marker) {
          marker.complete(null);
          continue;
        }
        if (!(item instanceof HttpRequest req)) {
          continue;
        }
        try {
          HttpResponse<Void> r = http.send(req, HttpResponse.BodyHandlers.discarding());
          if (r.statusCode() / 100 != 2) {
            LOG.warn("{} answered {}", req.uri(), r.statusCode());
          }
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          LOG.warn("{} failed: {}", req.uri(), e.toString());
        } finally {
          unsent.decrementAndGet();
        }
      }
    }
  }

  /**
   * The header {@code x-svc-gateway-url} when present, else the configured URL, else null (no
   * reports).
   */
  public String baseUrl(Envelope e) {
    String fromHeader = e.header(Envelope.GATEWAY_URL_HEADER);
    String url = fromHeader != null && !fromHeader.isBlank() ? fromHeader.trim() : defaultUrl;
    return url == null ? null : (url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
  }

  /**
   * {@code POST {url}/mesh/{id}/progress}, route form, {@code state} received / processing /
   * completed.
   */
  public void progress(Envelope e, Route route, ActorState state, String message) {
    ProgressReport report = ProgressReport.routeForm(route, state, message);
    if (speaksEvents(e)) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("actor", route.curr());
      data.put("progress", Progress.percent(report));
      if (message != null) {
        data.put("message", message);
      }
      enqueue(
          e,
          "events",
          Json.bytes(Map.of("type", "status", "status", MeshStatus.RUNNING, "data", data)));
    } else {
      enqueue(e, "progress", Json.bytes(report));
    }
  }

  /** {@code POST {url}/mesh/{id}/fly}: the FLY object verbatim. */
  public void fly(Envelope e, JsonNode fly) {
    if (speaksEvents(e)) {
      enqueue(e, "events", Json.bytes(Map.of("type", "fly", "data", fly)));
    } else {
      enqueue(e, "fly", Json.bytes(fly));
    }
  }

  static boolean speaksEvents(Envelope e) {
    return Envelope.EVENTS_PROTOCOL.equalsIgnoreCase(
        String.valueOf(e.header(Envelope.GATEWAY_PROTOCOL_HEADER)));
  }

  /** mesh-api's form of a final report: a status event with result or error. */
  static Map<String, Object> statusEvent(FinalReport report) {
    Map<String, Object> data = new LinkedHashMap<>();
    if (report.currentActorName() != null) {
      data.put("actor", report.currentActorName());
    }
    if (report.result() != null) {
      data.put("result", report.result());
    }
    if (report.error() != null) {
      data.put("error", report.error());
    }
    return Map.of("type", "status", "status", report.status(), "data", data);
  }

  /** {@code POST {url}/mesh/{id}/final}; true when the gateway answered 2xx. */
  public boolean finalReport(Envelope e, FinalReport report) {
    String base = baseUrl(e);
    if (base == null) {
      LOG.debug("no gateway URL for {}: final report skipped", e.id());
      return false;
    }
    HttpRequest req =
        speaksEvents(e)
            ? request(base, e.id(), "events", Json.bytes(statusEvent(report)))
            : request(base, e.id(), "final", Json.bytes(report));
    return sendWithRetries(req, "final report for " + e.id());
  }

  /**
   * Registers fan-out children as tasks: one {@code POST {url}/tasks} with a JSON array, one item
   * per child ({@code id}, {@code parent_id}, {@code actors}, {@code current}, {@code payload}) and
   * {@code index: 0} so the gateway keeps the sidecar's child id instead of suffixing it. The
   * gateway leaves a child that already exists as it is, so a retried batch registers nothing
   * twice. True when the gateway took them (2xx), or when there is nothing to register with: no
   * gateway URL, or an envelope of mesh-api, which has no task registry for children.
   */
  /**
   * Whether the envelope's task ended at the gateway while this actor still works on it (a client
   * canceled it, or its deadline passed): {@code GET /mesh/{id}/active} answers 410, or mesh-api's
   * {@code GET /mesh/{id}} shows a terminal status. No gateway, no answer within 2 s, or any other
   * answer: not ended, and the call goes on.
   */
  public boolean taskEnded(Envelope e) {
    String base = baseUrl(e);
    if (base == null || closed) {
      return false;
    }
    boolean events = speaksEvents(e);
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(base + "/mesh/" + e.id() + (events ? "" : "/active")))
            .timeout(Duration.ofSeconds(2))
            .GET()
            .build();
    try {
      HttpResponse<byte[]> r = http.send(req, HttpResponse.BodyHandlers.ofByteArray());
      if (!events) {
        return r.statusCode() == 410;
      }
      return r.statusCode() == 200
          && MeshStatus.find(Json.MAPPER.readTree(r.body()).path("status").asText(""))
              .map(MeshStatus::isTerminal)
              .orElse(false);
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      return false;
    } catch (IOException | RuntimeException ex) {
      LOG.debug("could not ask whether task {} ended: {}", e.id(), ex.toString());
      return false;
    }
  }

  public boolean registerChildren(Envelope parent, List<Envelope> children) {
    String base = baseUrl(parent);
    if (children.isEmpty() || base == null || speaksEvents(parent)) {
      return true;
    }
    List<Map<String, Object>> items = new ArrayList<>();
    for (Envelope child : children) {
      Route r = child.route();
      // a child whose route ended here goes straight to x-sink: it is registered at its last actor
      List<String> actors = r.exhausted() ? r.prev() : r.actors();
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("id", child.id());
      item.put("parent_id", child.parentId());
      item.put("actors", actors);
      item.put("current", r.exhausted() ? actors.size() - 1 : r.prev().size());
      item.put("index", 0);
      item.put("payload", child.payload());
      items.add(item);
    }
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(base + "/tasks"))
            .timeout(Duration.ofSeconds(5))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(items)))
            .build();
    return sendWithRetries(req, "child registration for " + parent.id());
  }

  private boolean sendWithRetries(HttpRequest req, String what) {
    for (int attempt = 1; attempt <= 3; attempt++) {
      try {
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          return true;
        }
        LOG.warn("{} answered {}: {}", what, r.statusCode(), r.body());
        if (r.statusCode() / 100 == 4) {
          return false; // the gateway refused it; repeating will not help
        }
      } catch (Exception ex) {
        if (ex instanceof InterruptedException) {
          Thread.currentThread().interrupt();
          return false;
        }
        LOG.warn("{} failed (attempt {}): {}", what, attempt, ex.toString());
      }
      sleep(100L * attempt);
    }
    return false;
  }

  private void enqueue(Envelope e, String kind, byte[] body) {
    String base = baseUrl(e);
    if (base == null || closed) {
      return;
    }
    Lane lane = lanes[Math.floorMod(e.id().hashCode(), LANES)];
    lane.unsent.incrementAndGet();
    if (!lane.queue.offer(request(base, e.id(), kind, body))) {
      lane.unsent.decrementAndGet();
      LOG.warn("report queue full: {} report for {} dropped", kind, e.id());
    }
  }

  /**
   * Waits (at most {@code max}) until every report queued before this call was sent or failed. The
   * sidecar calls it before committing a batch's outputs, so the next actor's reports and x-sink's
   * final report cannot overtake this actor's: a {@code completed} that reached the gateway after
   * the final one would be dropped as stale.
   */
  public void awaitSent(Duration max) {
    if (closed) {
      return;
    }
    List<CompletableFuture<Void>> markers = new ArrayList<>();
    for (Lane lane : lanes) {
      CompletableFuture<Void> marker = new CompletableFuture<>();
      if (lane.unsent.get() > 0
          && lane.queue.offer(marker)) { // a full lane is dropping reports anyway
        markers.add(marker);
      }
    }
    if (markers.isEmpty()) {
      return;
    }
    try {
      CompletableFuture.allOf(markers.toArray(CompletableFuture[]::new))
          .get(max.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException slow) {
      LOG.warn(
          "progress reports not sent within {} ms; committing the batch anyway", max.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException cannotHappen) {
      // markers are only ever completed normally
    }
  }

  private HttpRequest request(String base, String id, String kind, byte[] body) {
    return HttpRequest.newBuilder(URI.create(base + "/mesh/" + id + "/" + kind))
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  /** Sends what is queued (up to 5 s), then stops. */
  @Override
  public void close() {
    closed = true;
    for (Lane lane : lanes) {
      // wakes a lane waiting for work; a full lane sees the flag once it has drained its queue
      lane.queue.offer(new CompletableFuture<Void>());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    for (Lane lane : lanes) {
      try {
        lane.sender.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      lane.sender.interrupt();
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

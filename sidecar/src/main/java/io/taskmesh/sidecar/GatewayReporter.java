package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Progress;
import io.taskmesh.schemas.ProgressReport;
import java.util.LinkedHashMap;
import java.util.Map;
import io.taskmesh.schemas.Route;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports to the gateway's legacy mesh routes ({@code /mesh/{id}/progress|final|fly}), or, when
 * the envelope carries {@code x-svc-gateway-protocol: events} (mesh-api stamps it), to mesh-api's
 * {@code POST {url}/mesh/{id}/events} with {@code {type: status|fly, ...}} bodies. Progress and FLY go through one ordered lane (a
 * bounded queue drained by one thread) so reports keep their order and never block routing; a
 * full queue or a failed POST is logged and dropped. Final reports are sent synchronously with a
 * few retries, since they end the task.
 */
public final class GatewayReporter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GatewayReporter.class);

  private final String defaultUrl;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final BlockingQueue<HttpRequest> lane = new ArrayBlockingQueue<>(10_000);
  private final Thread sender;
  private volatile boolean closed;

  public GatewayReporter(String defaultUrl) {
    this.defaultUrl = defaultUrl;
    this.sender = new Thread(this::drain, "gateway-reporter");
    sender.setDaemon(true);
    sender.start();
  }

  /** The header {@code x-svc-gateway-url} when present, else the configured URL, else null (no reports). */
  public String baseUrl(Envelope e) {
    String fromHeader = e.header(Envelope.GATEWAY_URL_HEADER);
    String url = fromHeader != null && !fromHeader.isBlank() ? fromHeader.trim() : defaultUrl;
    return url == null ? null : (url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
  }

  /** {@code POST {url}/mesh/{id}/progress}, route form, {@code state} received / processing / completed. */
  public void progress(Envelope e, Route route, String state, String message) {
    ProgressReport report = ProgressReport.routeForm(route, state, message);
    if (speaksEvents(e)) {
      Map<String, Object> data = new LinkedHashMap<>();
      data.put("actor", route.curr());
      data.put("progress", Progress.percent(report));
      if (message != null) {
        data.put("message", message);
      }
      enqueue(e, "events", Json.bytes(Map.of("type", "status", "status", "running", "data", data)));
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
    return Envelope.EVENTS_PROTOCOL.equalsIgnoreCase(String.valueOf(e.header(Envelope.GATEWAY_PROTOCOL_HEADER)));
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
    HttpRequest req = speaksEvents(e) ? request(base, e.id(), "events", Json.bytes(statusEvent(report)))
        : request(base, e.id(), "final", Json.bytes(report));
    for (int attempt = 1; attempt <= 3; attempt++) {
      try {
        HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 == 2) {
          return true;
        }
        LOG.warn("final report for {} answered {}: {}", e.id(), r.statusCode(), r.body());
        if (r.statusCode() / 100 == 4) {
          return false; // the gateway refused it; repeating will not help
        }
      } catch (Exception ex) {
        if (ex instanceof InterruptedException) {
          Thread.currentThread().interrupt();
          return false;
        }
        LOG.warn("final report for {} failed (attempt {}): {}", e.id(), attempt, ex.toString());
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
    if (!lane.offer(request(base, e.id(), kind, body))) {
      LOG.warn("report queue full: {} report for {} dropped", kind, e.id());
    }
  }

  private HttpRequest request(String base, String id, String kind, byte[] body) {
    return HttpRequest.newBuilder(URI.create(base + "/mesh/" + id + "/" + kind))
        .timeout(Duration.ofSeconds(5))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  private void drain() {
    while (!closed || !lane.isEmpty()) {
      HttpRequest req;
      try {
        req = lane.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (req == null) {
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
      }
    }
  }

  /** Sends what is queued (up to 5 s), then stops. */
  @Override
  public void close() {
    closed = true;
    try {
      sender.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sender.interrupt();
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

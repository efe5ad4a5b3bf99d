package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.ProgressReport;
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
 * Reports to the gateway's legacy mesh routes. Progress and FLY go through one ordered lane (a
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
    enqueue(e, "progress", Json.bytes(ProgressReport.routeForm(route, state, message)));
  }

  /** {@code POST {url}/mesh/{id}/fly}: the FLY object verbatim. */
  public void fly(Envelope e, JsonNode fly) {
    enqueue(e, "fly", Json.bytes(fly));
  }

  /** {@code POST {url}/mesh/{id}/final}; true when the gateway answered 2xx. */
  public boolean finalReport(Envelope e, FinalReport report) {
    String base = baseUrl(e);
    if (base == null) {
      LOG.debug("no gateway URL for {}: final report skipped", e.id());
      return false;
    }
    HttpRequest req = request(base, e.id(), "final", Json.bytes(report));
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

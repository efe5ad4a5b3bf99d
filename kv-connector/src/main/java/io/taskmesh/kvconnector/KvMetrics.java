package io.taskmesh.kvconnector;

import io.micrometer.core.instrument.Timer;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code taskmesh_kv_request_duration_seconds} by route (the OpenAPI path, ids replaced), method
 * and status class: measured from the request's arrival to the end of its response.
 */
final class KvMetrics {
  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofSeconds(5)
  };

  private static final Map<List<String>, Timer> TIMERS = new ConcurrentHashMap<>();

  private KvMetrics() {}

  /** Called first for each request; records once the response has ended. */
  static void time(HttpServerRequest req) {
    long start = System.nanoTime();
    String route = route(req.path());
    String method = req.method().name();
    req.response()
        .endHandler(
            v ->
                TIMERS
                    .computeIfAbsent(
                        List.of(route, method, req.response().getStatusCode() / 100 + "xx"),
                        KvMetrics::timer)
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS));
  }

  /** The timer of (route, method, status class), registered on its first request. */
  private static Timer timer(List<String> key) {
    return Timer.builder("taskmesh.kv.request.duration")
        .description("kv-connector requests, from arrival to the end of the response")
        .tag("route", key.get(0))
        .tag("method", key.get(1))
        .tag("status", key.get(2))
        .serviceLevelObjectives(BUCKETS)
        .register(ServiceMetrics.registry());
  }

  static String route(String path) {
    if (path == null) {
      return "other";
    }
    if (path.startsWith(KeyRoutes.PREFIX) && path.length() > KeyRoutes.PREFIX.length()) {
      return "/keys/{key}";
    }
    return switch (path) {
      case "/keys/", "/keys" -> "/keys/";
      case "/query", "/healthz" -> path;
      default -> "other";
    };
  }
}

package io.taskmesh.kvconnector;

import io.micrometer.core.instrument.Timer;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;

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

  private KvMetrics() {}

  /** Called first for each request; records once the response has ended. */
  static void time(HttpServerRequest req) {
    long start = System.nanoTime();
    String route = route(req.path());
    String method = req.method().name();
    req.response()
        .endHandler(
            v ->
                Timer.builder("taskmesh.kv.request.duration")
                    .description("kv-connector requests, from arrival to the end of the response")
                    .tag("route", route)
                    .tag("method", method)
                    .tag("status", req.response().getStatusCode() / 100 + "xx")
                    .serviceLevelObjectives(BUCKETS)
                    .register(ServiceMetrics.registry())
                    .record(Duration.ofNanos(System.nanoTime() - start)));
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

package io.taskmesh.gateway;

import io.javalin.config.JavalinConfig;
import io.javalin.http.HttpStatus;
import io.javalin.http.MethodNotAllowedResponse;
import io.taskmesh.gateway.launch.DispatchException;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.ViewUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The answers to what handlers throw: domain errors become status codes a client can act on. */
final class ErrorResponses {
  // under the app's logger name, where these errors have always been logged
  private static final Logger LOG = LoggerFactory.getLogger(GatewayApp.class);

  private ErrorResponses() {}

  static void register(JavalinConfig cfg) {
    cfg.routes.exception(
        MethodNotAllowedResponse.class,
        (e, ctx) -> {
          String allow = e.getDetails().getOrDefault("availableMethods", "");
          ctx.status(HttpStatus.METHOD_NOT_ALLOWED)
              .header("Allow", allow)
              .result("method not allowed; allowed: " + allow);
        });
    cfg.routes.exception(
        ViewUnavailableException.class,
        (e, ctx) -> {
          ctx.status(HttpStatus.SERVICE_UNAVAILABLE)
              .header("Retry-After", "1")
              .result(e.getMessage());
        });
    cfg.routes.exception(
        EventLogException.class,
        (e, ctx) -> {
          LOG.error("event log write failed: {}", e.getMessage());
          ctx.status(HttpStatus.INTERNAL_SERVER_ERROR)
              .result("task log unavailable: " + e.getMessage());
        });
    // a queue that refuses the envelope is answered like the task log: the client retries either
    // way
    cfg.routes.exception(
        DispatchException.class,
        (e, ctx) -> {
          LOG.error("envelope dispatch failed: {}", e.getMessage());
          ctx.status(HttpStatus.INTERNAL_SERVER_ERROR)
              .result("task log unavailable: " + e.getMessage());
        });
  }
}

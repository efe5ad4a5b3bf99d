package io.taskmesh.meshapi;

import io.javalin.config.JavalinConfig;
import io.taskmesh.servicekit.ops.KafkaProbe;
import io.taskmesh.servicekit.ops.Readiness;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.time.Duration;

/**
 * mesh-api's operations routes on both ports: {@code /metrics} and {@code /ready} (Kafka reachable,
 * the kv-connector answering its {@code /healthz}).
 */
final class MeshApiOps {
  private MeshApiOps() {}

  static Readiness readiness(MeshConfig config, ConnectorClient kv) {
    return new Readiness()
        .add("kafka", new KafkaProbe(config.kafkaBootstrap(), Duration.ofSeconds(2)))
        .add("kv_connector", () -> kv.healthy() ? null : "kv-connector does not answer /healthz");
  }

  static void mount(JavalinConfig cfg, Readiness readiness) {
    cfg.routes.get(
        "/metrics",
        ctx -> {
          ServiceMetrics.Scrape scrape = ServiceMetrics.scrape(ctx.header("Accept"));
          ctx.contentType(scrape.contentType()).result(scrape.body());
        });
    cfg.routes.get(
        "/ready",
        ctx -> {
          Readiness.Answer a = readiness.check();
          ctx.status(a.httpStatus()).contentType("application/json").result(a.json());
        });
  }
}

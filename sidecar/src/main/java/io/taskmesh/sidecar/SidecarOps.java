package io.taskmesh.sidecar;

import io.taskmesh.servicekit.ops.KafkaProbe;
import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Readiness of a sidecar or crew actor, answered on its ops port ({@code SVC_METRICS_PORT}): Kafka
 * reachable, and the consume loop running.
 */
final class SidecarOps {
  private SidecarOps() {}

  static Readiness readiness(SidecarConfig config, BooleanSupplier loopRunning) {
    KafkaProbe kafka = new KafkaProbe(config.bootstrapServers(), Duration.ofSeconds(2));
    return new Readiness()
        .add("kafka", kafka)
        .add(
            "consumer_loop",
            () ->
                loopRunning.getAsBoolean()
                    ? null
                    : "the consume loop of " + config.actorName() + " stopped");
  }

  /** Closes the ops port (if any) and the readiness probe's Kafka client. */
  static void close(OpsServer ops, Readiness readiness) {
    if (ops != null) {
      ops.close();
    }
    readiness.close();
  }
}

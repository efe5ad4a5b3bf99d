package io.taskmesh.connectors;

import io.taskmesh.servicekit.ops.Readiness;

/**
 * Readiness of a state connector, answered on its ops port ({@code SVC_METRICS_PORT}): the backend
 * answers a metadata read of a key that is never written (absent is an answer; a store that cannot
 * be reached throws).
 */
final class ConnectorOps {
  static final String PROBE_KEY = ".taskmesh-readiness-probe";

  private ConnectorOps() {}

  static Readiness readiness(StateBackend backend) {
    return new Readiness()
        .add(
            "backend",
            () -> {
              backend.stat(PROBE_KEY);
              return null;
            });
  }
}

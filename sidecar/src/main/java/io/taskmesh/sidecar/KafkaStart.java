package io.taskmesh.sidecar;

import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.TopicCreator;

/**
 * The first thing every actor does with Kafka at start: wait for a broker that does not answer yet
 * (it starts beside us, or restarts), with backoff, for {@code SVC_STARTUP_RETRY_TIMEOUT}; each
 * retry is one WARN line, giving up is one {@link StartupRetry.GaveUp} that {@link Main} prints.
 */
final class KafkaStart {
  private KafkaStart() {}

  static void await(TopicCreator admin, SidecarConfig config) {
    try {
      admin.awaitBroker(
          TopicCreator.startupRetry(config.bootstrapServers(), config.startupRetryTimeout()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
  }
}

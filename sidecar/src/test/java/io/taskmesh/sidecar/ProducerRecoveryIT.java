package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Topics;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A sidecar whose transactional producer is fenced (here by another producer that takes its
 * transactional id, as a coordinator does after a broker restart or a timed-out transaction)
 * replaces the producer, retries the batch's transaction once and goes on: it does not exit, and
 * every envelope reaches x-sink exactly once.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ProducerRecoveryIT {

  @Test
  void aFencedProducerIsReplacedAndNoEnvelopeIsLostOrDoubled() throws Exception {
    try (TestMesh mesh = new TestMesh()) {
      AtomicInteger exits = new AtomicInteger();
      RuntimeProcess rt =
          mesh.runtime(TestMesh.repoRoot().resolve("runtime/examples"), "echo.handle");
      SidecarConfig cfg = mesh.config("echo", rt.socketDir());
      Sidecar echo = mesh.sidecar(rt, cfg, status -> exits.incrementAndGet());
      mesh.send(envelope(mesh, "before"));
      assertThat(mesh.read(mesh.topic(Topics.SINK), 1, Duration.ofSeconds(60))).hasSize(1);

      fence(mesh, cfg.transactionalId());
      for (String id : List.of("after-1", "after-2", "after-3")) {
        mesh.send(envelope(mesh, id));
      }
      List<String> sunk =
          mesh.read(mesh.topic(Topics.SINK), 4, Duration.ofSeconds(90)).stream()
              .map(r -> r.key())
              .toList();
      assertThat(sunk).containsExactlyInAnyOrder("before", "after-1", "after-2", "after-3");
      assertThat(exits.get()).as("exit requests").isZero();
      assertThat(echo.running()).isTrue();
      assertThat(
              ActorLoop.needsNewProducer(
                  new org.apache.kafka.common.KafkaException(
                      "commit failed", new ProducerFencedException("fenced"))))
          .isTrue();
    }
  }

  /** Takes the sidecar's transactional id: its producer's epoch is now a stale one. */
  private static void fence(TestMesh mesh, String transactionalId) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, mesh.kafka.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    try (KafkaProducer<String, String> intruder =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      intruder.initTransactions();
    }
  }

  private static Envelope envelope(TestMesh mesh, String id) {
    return new Envelope(
        id,
        null,
        io.taskmesh.schemas.Route.start("echo", List.of()),
        null,
        io.taskmesh.schemas.Json.tree(Map.of("text", id)),
        Map.of());
  }
}

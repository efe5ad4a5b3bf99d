package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * x-sump routes nothing, so it commits its offsets through its consumer, without a transaction:
 * real broker; the offsets are what a restarted x-sump goes on from.
 */
@Timeout(120)
class SumpOffsetsIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final TestMesh mesh = new TestMesh();

  @AfterEach
  void close() {
    mesh.close();
  }

  @Test
  void xSumpCommitsItsOffsetsWithoutATransactionAndARestartGoesOnFromThem() throws Exception {
    SumpActor sump = mesh.sump();
    for (int i = 1; i <= 3; i++) {
      mesh.send(mesh.topic("x-sump"), "s" + i, ended("s" + i));
    }
    Await.until(() -> sump.succeeded() == 3, WAIT, "x-sump counted three");

    String group = mesh.topic("x-sump");
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, mesh.kafka.bootstrapServers()))) {
      Await.until(() -> committed(admin, group) == 3, WAIT, "x-sump's offsets committed");
      List<TransactionListing> ours =
          admin.listTransactions().all().get().stream()
              .filter(t -> t.transactionalId().startsWith(group))
              .toList();
      assertThat(ours)
          .as("x-sump's producer never began a transaction")
          .allSatisfy(t -> assertThat(t.state()).isEqualTo(TransactionState.EMPTY));
    }

    sump.close();
    SumpActor again = mesh.sump();
    mesh.send(mesh.topic("x-sump"), "s4", ended("s4"));
    Await.until(() -> again.succeeded() >= 1, WAIT, "the restarted x-sump counted");
    assertThat(mesh.read(mesh.topic("x-sump"), 4, WAIT)).hasSize(4);
    assertThat(again.succeeded()).as("only the envelope after the committed three").isEqualTo(1);
  }

  private byte[] ended(String id) {
    Envelope e = mesh.envelope(id, Map.of("text", id), "upper");
    return Json.bytes(
        new Envelope(
            id, null, new Route(List.of("upper"), "", List.of()), null, e.payload(), e.headers()));
  }

  private static long committed(Admin admin, String group) {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      return offsets.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
    } catch (Exception e) {
      return -1;
    }
  }
}

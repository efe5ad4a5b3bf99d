package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar's Main in a child JVM, stopped with SIGTERM in the middle of a batch of slow
 * envelopes: its ops port answered ready before, and after the stop the batch it had in hand was
 * finished and committed (x-sink holds more than at the signal, and exactly as many envelopes as
 * the group's committed offsets say were consumed).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class SidecarDrainIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  TestMesh mesh;
  @TempDir Path tmp;

  @BeforeEach
  void start() {
    mesh = new TestMesh();
  }

  @AfterEach
  void stop() {
    mesh.close();
  }

  @Test
  void sigtermFinishesAndCommitsTheBatchInHand() throws Exception {
    RuntimeProcess rt = mesh.runtime("testhandlers.slow");
    for (int i = 0; i < 40; i++) {
      mesh.send(mesh.envelope("d-" + i, Map.of("sleep", 0.3), "d"));
    }
    Map<String, String> env =
        Map.of(
            "KAFKA_BOOTSTRAP_SERVERS", mesh.kafka.bootstrapServers(),
            "SVC_NAMESPACE", mesh.namespace,
            "SVC_ACTOR_NAME", "d",
            "SVC_SOCKET_DIR", rt.socketDir().toString(),
            "SVC_INSTANCE_ID", "d-0",
            "SVC_MAX_POLL_RECORDS", "10",
            "SVC_METRICS_PORT", "0",
            "SVC_METRICS_HOST", "127.0.0.1");
    try (ChildJvm sidecar = ChildJvm.start(Main.class.getName(), env, tmp.resolve("d.log"))) {
      String line =
          sidecar.awaitLine(
              l -> l.contains("metrics and readiness on http://"), 60, TimeUnit.SECONDS);
      String ops = line.substring(line.indexOf("http://"), line.indexOf("/metrics"));
      Await.until(
          () -> get(ops + "/ready").statusCode() == 200, Duration.ofSeconds(30), "sidecar ready");
      assertThat(get(ops + "/ready").body())
          .isEqualTo(
              "{\"status\":\"ready\",\"checks\":{\"kafka\":{\"ok\":true},\"consumer_loop\":{\"ok\":true}}}");
      assertThat(get(ops + "/metrics").body())
          .contains("taskmesh_actor_consumer_lag_records{actor=\"d\"");
      Await.until(
          () -> sinkCount() >= 5, Duration.ofSeconds(60), "a first batch committed to x-sink");

      int atSignal = sinkCount();
      ProcessHandle.of(sidecar.pid()).ifPresent(ProcessHandle::destroy); // SIGTERM
      Await.until(() -> !sidecar.isAlive(), Duration.ofSeconds(40), "sidecar exits after SIGTERM");

      int after = sinkCount();
      assertThat(after).as("the batch in hand was finished and committed").isGreaterThan(atSignal);
      assertThat(after).as("it stopped instead of draining the whole topic").isLessThan(40);
      assertThat(committedOffsets()).as("offsets committed with the outputs").isEqualTo(after);
    }
  }

  private int sinkCount() {
    return mesh.read(mesh.topic("x-sink"), 0, Duration.ZERO).size();
  }

  private long committedOffsets() throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, mesh.kafka.bootstrapServers()))) {
      return admin
          .listConsumerGroupOffsets(mesh.topic("d"))
          .partitionsToOffsetAndMetadata()
          .get(10, TimeUnit.SECONDS)
          .values()
          .stream()
          .mapToLong(OffsetAndMetadata::offset)
          .sum();
    }
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

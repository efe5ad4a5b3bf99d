package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sidecar's Main in a child JVM, stopped with SIGTERM in the middle of a batch of slow
 * envelopes: its ops port answered ready before, and after the stop the batch it had in hand was
 * finished and committed (x-sink holds more than at the signal, and exactly as many envelopes as
 * the group's committed offsets say were consumed). Its JSON log lines carry the envelope's task
 * id, the actor and the trace id of its traceparent (the record header or the envelope's own).
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
    // first, one envelope for another actor: refused with a log line that names it
    sendWithTraceparent(mesh.envelope("wrong-1", Map.of(), "elsewhere"), TRACE_ID);
    // and one whose trace context travels in the envelope's own headers, as taskmesh sends it
    Envelope wrong2 =
        withEnvelopeTrace(mesh.envelope("wrong-2", Map.of(), "elsewhere"), ENVELOPE_TRACE_ID);
    mesh.send(mesh.topic("d"), wrong2.id(), Json.bytes(wrong2));
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
            "SVC_METRICS_HOST", "127.0.0.1",
            "SVC_LOG_FORMAT", "json");
    try (ChildJvm sidecar = ChildJvm.start(Main.class.getName(), env, tmp.resolve("d.log"))) {
      // a JSON log line: its message holds the URL, with '/' escaped as '\/' by the encoder
      String line =
          sidecar
              .awaitLine(l -> l.contains("metrics and readiness on http"), 60, TimeUnit.SECONDS)
              .replace("\\/", "/");
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
      // where a batch's time goes: every step of a committed batch is timed, and its size counted
      // (recorded just after the commit returns, so a reader of x-sink may be a moment earlier)
      List<String> stepMeters =
          List.of(
              "taskmesh_actor_batch_step_duration_seconds_count{actor=\"d\",step=\"handle\"}",
              "taskmesh_actor_batch_step_duration_seconds_count{actor=\"d\",step=\"offsets\"}",
              "taskmesh_actor_batch_step_duration_seconds_count{actor=\"d\",step=\"commit\"}",
              "taskmesh_actor_batch_size_records_count{actor=\"d\"}");
      Await.until(
          () -> stepMeters.stream().allMatch(get(ops + "/metrics").body()::contains),
          Duration.ofSeconds(10),
          "batch step meters on /metrics");

      int atSignal = sinkCount();
      ProcessHandle.of(sidecar.pid()).ifPresent(ProcessHandle::destroy); // SIGTERM
      Await.until(() -> !sidecar.isAlive(), Duration.ofSeconds(40), "sidecar exits after SIGTERM");

      int after = sinkCount();
      assertThat(after).as("the batch in hand was finished and committed").isGreaterThan(atSignal);
      assertThat(after).as("it stopped instead of draining the whole topic").isLessThan(42);
      assertThat(committedOffsets()).as("offsets committed with the outputs").isEqualTo(after);
    }
    // the JSON log: the refusal's line carries the envelope's task id, the actor and the trace id
    List<JsonNode> events =
        Files.readAllLines(tmp.resolve("d.log")).stream()
            .filter(l -> l.startsWith("{"))
            .map(l -> Json.read(l.getBytes(StandardCharsets.UTF_8), JsonNode.class))
            .toList();
    assertThat(events)
        .filteredOn(e -> e.path("formattedMessage").asText().contains("wrong-1"))
        .isNotEmpty()
        .allSatisfy(
            e -> {
              assertThat(e.path("mdc").path("task_id").asText()).isEqualTo("wrong-1");
              assertThat(e.path("mdc").path("actor").asText()).isEqualTo("d");
              assertThat(e.path("mdc").path("trace_id").asText()).isEqualTo(TRACE_ID);
            });
    assertThat(events)
        .filteredOn(e -> e.path("formattedMessage").asText().contains("wrong-2"))
        .isNotEmpty()
        .allSatisfy(
            e -> assertThat(e.path("mdc").path("trace_id").asText()).isEqualTo(ENVELOPE_TRACE_ID));
  }

  private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String ENVELOPE_TRACE_ID = "0af7651916cd43dd8448eb211c80319c";

  private static Envelope withEnvelopeTrace(Envelope e, String traceId) {
    Map<String, Object> headers = new HashMap<>(e.headers());
    headers.put("traceparent", "00-" + traceId + "-b7ad6b7169203331-01");
    return new Envelope(e.id(), e.parentId(), e.route(), e.status(), e.payload(), headers);
  }

  private void sendWithTraceparent(Envelope e, String traceId) throws Exception {
    try (KafkaProducer<String, byte[]> p =
        new KafkaProducer<>(
            Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, mesh.kafka.bootstrapServers()),
            new StringSerializer(),
            new ByteArraySerializer())) {
      ProducerRecord<String, byte[]> r =
          new ProducerRecord<>(mesh.topic("d"), e.id(), Json.bytes(e));
      r.headers()
          .add(
              "traceparent",
              ("00-" + traceId + "-00f067aa0ba902b7-01").getBytes(StandardCharsets.UTF_8));
      p.send(r).get(30, TimeUnit.SECONDS);
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

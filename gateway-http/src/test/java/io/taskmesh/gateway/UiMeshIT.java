package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard's envelope routes with mesh-api configured, on the shared broker: the live feed
 * forwards the status records mesh-api fans out (its wire format, produced here to a topic of this
 * test's own) and nothing else, and a mesh-api that does not answer is a 503, not a stack trace.
 * The whole path with a real mesh-api is cli's {@code DashboardIT}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class UiMeshIT {
  private static final String TOPIC = "ui-mesh-it-" + UUID.randomUUID();
  private static EdgeGateway gateway;
  private static KafkaProducer<String, byte[]> producer;

  @BeforeAll
  static void start() throws Exception {
    int closedPort = TaskHttp.freePort(); // nothing listens there once closed
    String bootstrap = LocalKafka.shared().bootstrapServers();
    gateway =
        EdgeGateway.start(
            GatewayMode.TESTING,
            Map.of(
                "KAFKA_BOOTSTRAP_SERVERS",
                bootstrap,
                "SVC_UI_MESH_API_URL",
                "http://127.0.0.1:" + closedPort + "/api/v1/",
                "SVC_MESH_API_EVENTS_TOPIC",
                TOPIC));
    producer =
        new KafkaProducer<>(
            Map.of("bootstrap.servers", bootstrap),
            new StringSerializer(),
            new ByteArraySerializer());
  }

  @AfterAll
  static void stop() throws Exception {
    if (producer != null) {
      producer.close();
    }
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void theStreamForwardsStatusRecordsOnly() throws Exception {
    try (SseReader live = SseReader.open(gateway.url("/ui/mesh/stream"), null)) {
      assertThat(live.status()).isEqualTo(200);
      // the comment comes once the stream is subscribed to the records
      SseReader.Event opened = live.next(Duration.ofSeconds(10));
      assertThat(opened).isNotNull();
      assertThat(opened.event()).isEqualTo("comment");
      assertThat(opened.data()).contains("envelopes");
      String first = "env-" + UUID.randomUUID();
      publish(first, "status", "{\"status\":\"running\",\"actor\":\"echo\",\"progress\":10}");
      SseReader.Event seen = nextEvent(live);
      assertThat(seen).as("a status record reaches the stream").isNotNull();
      assertThat(seen.event()).isEqualTo("status");
      JsonNode data = Json.MAPPER.readTree(seen.data());
      assertThat(data.get("id").asText()).isEqualTo(first);
      assertThat(data.get("status").asText()).isEqualTo("running");
      assertThat(data.get("actor").asText()).isEqualTo("echo");
      assertThat(data.has("at")).isTrue();

      String second = "env-" + UUID.randomUUID();
      publish(second, "fly", "{\"partial\":true,\"text\":\"not for the list\"}");
      publish(second, "status", "{\"status\":\"succeeded\",\"progress\":100,\"result\":{\"x\":1}}");
      SseReader.Event next = nextEvent(live);
      assertThat(next).isNotNull();
      assertThat(next.event()).as("the fly record is not forwarded").isEqualTo("status");
      JsonNode done = Json.MAPPER.readTree(next.data());
      assertThat(done.get("id").asText()).isEqualTo(second);
      assertThat(done.get("status").asText()).isEqualTo("succeeded");
      assertThat(done.at("/result/x").asInt()).isEqualTo(1);
    }
  }

  @Test
  void aMeshApiThatDoesNotAnswerIsA503AndABadIdA400() {
    var list = gateway.get("/ui/mesh?status=running");
    assertThat(list.statusCode()).isEqualTo(503);
    assertThat(EdgeGateway.json(list).get("error").asText()).isEqualTo("mesh_api_unavailable");
    assertThat(gateway.get("/ui/mesh/some-envelope").statusCode()).isEqualTo(503);
    assertThat(gateway.get("/ui/mesh/bad%20id").statusCode()).isEqualTo(400);
  }

  /** The next event that is not a comment (keepalives), or null after 20 s. */
  private static SseReader.Event nextEvent(SseReader live) throws InterruptedException {
    SseReader.Event e;
    do {
      e = live.next(Duration.ofSeconds(20));
    } while (e != null && "comment".equals(e.event()));
    return e;
  }

  private static void publish(String id, String type, String data) throws Exception {
    String record = "{\"id\":\"" + id + "\",\"type\":\"" + type + "\",\"data\":" + data + "}";
    producer
        .send(new ProducerRecord<>(TOPIC, id, record.getBytes(StandardCharsets.UTF_8)))
        .get(10, TimeUnit.SECONDS);
  }
}

package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.schemas.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The deployment as processes: one kv-connector and two mesh-api replicas, each its own JVM started
 * from its {@code Main}, sharing only the connector's Unix socket and the broker. Replicas and the
 * connector are really killed with SIGKILL and restarted; no acknowledged create is lost.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MeshApiProcessesIT {
  private static final String P = "/api/v1/mesh";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static Path dir;
  private static Map<String, String> kvEnv;
  private static Map<String, String> meshEnv;
  private static final String NAMESPACE = "proc" + UUID.randomUUID().toString().substring(0, 8);
  private static ChildJvm connector;
  private static Replica a;
  private static Replica b;

  /** A mesh-api process and the two ports it printed. */
  record Replica(ChildJvm jvm, String ext, String internal) {
    static Replica start(String name) {
      ChildJvm jvm =
          ChildJvm.start(
              "io.taskmesh.meshapi.Main",
              meshEnv,
              dir.resolve(name + "-" + System.nanoTime() + ".log"));
      String ext =
          jvm.awaitLine(l -> l.startsWith("mesh-api: http://"), 60, TimeUnit.SECONDS).substring(10);
      String internal =
          jvm.awaitLine(l -> l.startsWith("mesh-api-internal: http://"), 5, TimeUnit.SECONDS)
              .substring(19);
      return new Replica(jvm, ext, internal);
    }
  }

  @BeforeAll
  static void start() throws Exception {
    String db = "mesh_proc_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    String admin = LocalPostgres.shared().jdbcUrl();
    try (Connection c = DriverManager.getConnection(admin);
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + db);
    }
    dir = Files.createTempDirectory("meshproc");
    Path socket = dir.resolve("kv.sock");
    kvEnv =
        Map.of(
            "CONNECTOR_SOCKET",
            socket.toString(),
            "STATE_PROXY_PG_URL",
            admin.replace("/postgres?", "/" + db + "?"),
            "STATE_PROXY_PG_INDEXES",
            "status,(deadline_at)::timestamptz");
    connector = startConnector();
    meshEnv =
        new HashMap<>(
            Map.of(
                "CONNECTOR_SOCKET",
                socket.toString(),
                "KAFKA_BOOTSTRAP_SERVERS",
                LocalKafka.shared().bootstrapServers(),
                "SVC_MESH_API_BIND_HOST",
                "127.0.0.1",
                "SVC_MESH_API_PORT",
                "0",
                "SVC_MESH_API_INTERNAL_PORT",
                "0",
                "SVC_MESH_API_EVENTS_TOPIC",
                "svc.mesh-api-events-" + NAMESPACE,
                "SVC_NAMESPACE",
                NAMESPACE));
    a = Replica.start("a");
    b = Replica.start("b");
  }

  private static ChildJvm startConnector() {
    ChildJvm jvm =
        ChildJvm.start(
            "io.taskmesh.kvconnector.Main", kvEnv, dir.resolve("kv-" + System.nanoTime() + ".log"));
    jvm.awaitLine(l -> l.startsWith("kv-connector: ready"), 60, TimeUnit.SECONDS);
    return jvm;
  }

  @AfterAll
  static void stop() {
    for (AutoCloseable c :
        new AutoCloseable[] {a == null ? null : a.jvm(), b == null ? null : b.jvm(), connector}) {
      try {
        if (c != null) {
          c.close();
        }
      } catch (Exception e) {
        // best effort: the processes die with the test JVM's temp dir anyway
      }
    }
  }

  @Test
  void anSseClientOnOneProcessSeesWhatIsPostedToTheOther() throws Exception {
    String id = create(a, "{\"payload\":{\"n\":1}}");
    try (SseReader sse = new SseReader(HTTP, b.ext() + P + "/" + id + "/events")) {
      assertThat(Json.read(sse.next(10).data(), JsonNode.class).path("status").asText())
          .isEqualTo("pending");
      assertThat(
              event(
                  a,
                  id,
                  "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"echo\",\"progress\":50}}"))
          .isEqualTo(204);
      assertThat(Json.read(sse.next(10).data(), JsonNode.class).path("status").asText())
          .isEqualTo("running");
      assertThat(
              event(a, id, "{\"type\":\"fly\",\"data\":{\"type\":\"partial\",\"token\":\"tok\"}}"))
          .isEqualTo(204);
      SseReader.Frame fly = sse.next(10);
      assertThat(fly.event()).isEqualTo("fly");
      assertThat(fly.data()).contains("tok");
      assertThat(
              event(
                  a,
                  id,
                  "{\"type\":\"status\",\"status\":\"succeeded\",\"data\":{\"actor\":\"x-sink\",\"progress\":100}}"))
          .isEqualTo(204);
      assertThat(Json.read(sse.next(10).data(), JsonNode.class).path("status").asText())
          .isEqualTo("succeeded");
      assertThat(sse.awaitEnd(10)).isTrue();
    }
    assertThat(
            Json.read(send("GET", b.ext() + P + "/" + id, null).body(), JsonNode.class)
                .path("status")
                .asText())
        .isEqualTo("succeeded");
  }

  @Test
  void killMinus9OfAReplicaAndOfTheConnectorLosesNoAcknowledgedEnvelope() throws Exception {
    List<String> acked = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      acked.add(create(i % 2 == 0 ? a : b, "{\"payload\":{\"i\":" + i + "}}"));
    }
    // replica A dies without any shutdown; B goes on alone, then A comes back on new ports
    a.jvm().kill9();
    assertThat(a.jvm().isAlive()).isFalse();
    for (int i = 40; i < 60; i++) {
      acked.add(create(b, "{\"payload\":{\"i\":" + i + "}}"));
    }
    a = Replica.start("a2");
    for (int i = 60; i < 80; i++) {
      acked.add(create(a, "{\"payload\":{\"i\":" + i + "}}"));
    }

    // the connector dies: creates answer 503 (nothing acknowledged, nothing half-written)
    connector.kill9();
    HttpResponse<String> down =
        send("POST", a.ext() + P + "/?actor=echo", "{\"payload\":{\"down\":true}}");
    assertThat(down.statusCode()).as(down.body()).isEqualTo(503);
    assertThat(Json.read(down.body(), JsonNode.class).has("error")).isTrue();
    connector = startConnector(); // same socket path: the stale socket file is replaced
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    HttpResponse<String> back =
        send("POST", b.ext() + P + "/?actor=echo", "{\"payload\":{\"i\":80}}");
    while (back.statusCode() != 201 && System.nanoTime() < deadline) {
      Thread.sleep(100); // the replicas reconnect to the new connector on their next request
      back = send("POST", b.ext() + P + "/?actor=echo", "{\"payload\":{\"i\":80}}");
    }
    assertThat(back.statusCode()).as(back.body()).isEqualTo(201);
    acked.add(Json.read(back.body(), JsonNode.class).path("id").asText());

    // every acknowledged envelope is stored (readable on both replicas) and was dispatched
    for (String id : acked) {
      assertThat(send("GET", a.ext() + P + "/" + id, null).statusCode()).as(id).isEqualTo(200);
      assertThat(send("GET", b.ext() + P + "/" + id, null).statusCode()).as(id).isEqualTo(200);
    }
    assertThat(dispatchedIds(acked.size())).containsAll(acked);
    JsonNode list = Json.read(send("GET", b.ext() + P + "/?limit=1", null).body(), JsonNode.class);
    assertThat(list.path("total").asInt()).isGreaterThanOrEqualTo(acked.size());
  }

  /**
   * Envelope ids on the actor's topic (read_committed, from the start), until {@code atLeast} are
   * seen.
   */
  private static Set<String> dispatchedIds(int atLeast) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, LocalKafka.shared().bootstrapServers());
    p.put(ConsumerConfig.GROUP_ID_CONFIG, "proc-it-" + UUID.randomUUID());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    Set<String> ids = new HashSet<>();
    try (KafkaConsumer<String, String> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      c.subscribe(List.of("svc-" + NAMESPACE + "-echo"));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (ids.size() < atLeast && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
          ids.add(Json.read(r.value(), JsonNode.class).path("id").asText());
        }
      }
    }
    return ids;
  }

  private static String create(Replica r, String body) {
    HttpResponse<String> resp = send("POST", r.ext() + P + "/?actor=echo", body);
    assertThat(resp.statusCode()).as(resp.body()).isEqualTo(201);
    return Json.read(resp.body(), JsonNode.class).path("id").asText();
  }

  private static int event(Replica r, String id, String body) {
    return send("POST", r.internal() + P + "/" + id + "/events", body).statusCode();
  }

  private static HttpResponse<String> send(String method, String url, String body) {
    try {
      HttpRequest.Builder req =
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(20))
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body));
      if (body != null) {
        req.header("Content-Type", "application/json");
      }
      return HTTP.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + url + ": " + e, e);
    }
  }
}

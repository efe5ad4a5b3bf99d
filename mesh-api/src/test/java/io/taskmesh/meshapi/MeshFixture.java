package io.taskmesh.meshapi;

import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.kvconnector.KvApp;
import io.taskmesh.kvconnector.KvConfig;
import io.taskmesh.kvconnector.KvStore;
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
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A real kv-connector (in this JVM, on a real Unix socket, its own database on the shared Postgres)
 * and two mesh-api replicas A and B on their own ports. They share only the connector socket and
 * the Kafka broker (one fan-out topic per fixture).
 */
final class MeshFixture implements AutoCloseable {
  final Path dir;
  final KvStore store;
  final KvApp connector;
  final Replica a;
  final Replica b;
  final String namespace = "it" + UUID.randomUUID().toString().substring(0, 8);
  final String eventsTopic = "svc.mesh-api-events-" + UUID.randomUUID().toString().substring(0, 8);
  final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  final String jdbcUrl;

  static final class Replica implements AutoCloseable {
    final MeshConfig config;
    final ConnectorClient kv;
    final EventBus bus;
    final MeshApiApp app;

    Replica(MeshConfig config) {
      this.config = config;
      this.kv = new ConnectorClient(config.connectorSocket());
      this.bus = new EventBus(config);
      this.app = new MeshApiApp(config, kv, bus).start();
    }

    String ext(String path) {
      return "http://127.0.0.1:" + app.externalPort() + path;
    }

    String internal(String path) {
      return "http://127.0.0.1:" + app.internalPort() + path;
    }

    @Override
    public void close() throws Exception {
      app.close();
      bus.close();
      kv.close();
    }
  }

  MeshFixture(Map<String, String> extraA, Map<String, String> extraB) throws Exception {
    LocalKafka kafka = LocalKafka.shared();
    LocalPostgres pg = LocalPostgres.shared();
    String db = "mesh_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + db);
    }
    jdbcUrl = pg.jdbcUrl().replace("/postgres?", "/" + db + "?");
    dir = Files.createTempDirectory("meshit");
    Path socket = dir.resolve("kv.sock");
    KvConfig kvc =
        KvConfig.fromEnv(
            Map.of(
                "CONNECTOR_SOCKET",
                socket.toString(),
                "STATE_PROXY_PG_URL",
                jdbcUrl,
                "STATE_PROXY_PG_INDEXES",
                "status,(deadline_at)::timestamptz"));
    store = new KvStore(kvc);
    store.ensureSchema();
    connector = new KvApp(kvc, store).start();
    Map<String, String> common =
        new HashMap<>(
            Map.of(
                "CONNECTOR_SOCKET", socket.toString(),
                "KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers(),
                "SVC_MESH_API_BIND_HOST", "127.0.0.1",
                "SVC_MESH_API_PORT", "0",
                "SVC_MESH_API_INTERNAL_PORT", "0",
                "SVC_MESH_API_EVENTS_TOPIC", eventsTopic,
                "SVC_MESH_API_DEADLINE_SCAN_MS", "200"));
    Map<String, String> envA = new HashMap<>(common);
    envA.put("SVC_NAMESPACE", namespace);
    envA.putAll(extraA);
    Map<String, String> envB = new HashMap<>(common);
    envB.putAll(extraB);
    a = new Replica(MeshConfig.fromEnv(envA));
    b = new Replica(MeshConfig.fromEnv(envB));
  }

  record Resp(int status, String body, HttpResponse<String> raw) {}

  Resp send(String method, String url, String body) {
    try {
      HttpRequest.Builder r =
          HttpRequest.newBuilder(URI.create(url))
              .timeout(Duration.ofSeconds(20))
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body));
      if (body != null) {
        r.header("Content-Type", "application/json");
      }
      HttpResponse<String> resp = http.send(r.build(), HttpResponse.BodyHandlers.ofString());
      return new Resp(resp.statusCode(), resp.body(), resp);
    } catch (Exception e) {
      throw new IllegalStateException(method + " " + url + ": " + e, e);
    }
  }

  @Override
  public void close() throws Exception {
    List<AutoCloseable> all = new ArrayList<>(List.of(a, b, connector, store));
    for (AutoCloseable c : all) {
      c.close();
    }
  }
}

package io.taskmesh.cli;

import io.taskmesh.devkit.LocalKafkaCluster;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.gateway.Gateway;
import io.taskmesh.gateway.GatewayConfig;
import io.taskmesh.gateway.TaskSettings;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.ExitHook;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import io.taskmesh.sidecar.SumpActor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The deployment the scale-out benchmark runs on, as an installation runs it: {@code brokers} KRaft
 * brokers (child JVMs), Postgres, a mesh gateway deployment for the sidecars, {@link #API_REPLICAS}
 * api gateway replicas for clients (fixed ports, so a restarted replica comes back where its
 * clients and its peers expect it), and {@link #INSTANCES} sidecar instances of each actor of the
 * example {@code shout} flow (each with its own Python runtime) plus two x-sink and one x-sump.
 */
final class ScaleOutStack implements AutoCloseable {
  static final int API_REPLICAS = 2;
  static final int INSTANCES = 2;
  static final List<String> ACTORS = List.of("upper", "reverse", "count");
  private static final String PARTITIONS = "4";

  private final Deque<AutoCloseable> started = new ArrayDeque<>();
  private final LocalKafkaCluster cluster;
  private final String namespace;
  private final List<Map<String, String>> apiEnv = new ArrayList<>();
  private final Gateway[] api;
  private final String[] apiUrls;

  @SuppressWarnings("unchecked")
  ScaleOutStack(Path root, Path data, int brokers) {
    try {
      cluster = LocalKafkaCluster.start(data.resolve("kafka"), brokers);
      started.push(cluster);
      LocalPostgres pg = LocalPostgres.start(data.resolve("postgres"), 0);
      started.push(pg);
      namespace = "scale" + Integer.toHexString(ThreadLocalRandom.current().nextInt());
      String rf = Integer.toString(cluster.replicationFactor());
      byte[] token = new byte[16];
      ThreadLocalRandom.current().nextBytes(token);

      Map<String, String> common = new HashMap<>();
      common.put("KAFKA_BOOTSTRAP_SERVERS", cluster.bootstrapServers());
      common.put("SVC_HOST", "127.0.0.1");
      common.put("SVC_NAMESPACE", namespace);
      common.put("SVC_CONFIG_PATH", root.resolve("examples/flows.yaml").toString());
      common.put("SVC_DATABASE_URL", pg.jdbcUrl());
      common.put("SVC_TOPIC_REPLICATION_FACTOR", rf);
      common.put("SVC_TASK_TOPIC_PARTITIONS", PARTITIONS);
      common.put("SVC_INTERNAL_TOKEN", HexFormat.of().formatHex(token));

      Map<String, String> meshEnv = new HashMap<>(common);
      meshEnv.put("SVC_GATEWAY_MODE", "mesh");
      meshEnv.put("SVC_PORT", Integer.toString(LocalPorts.freePort()));
      meshEnv.put("SVC_STATE_DIR", data.resolve("gateway-mesh").toString());
      Gateway mesh = Gateway.start(GatewayConfig.fromEnv(meshEnv), TaskSettings.fromEnv(meshEnv));
      started.push(mesh);
      String meshUrl = "http://127.0.0.1:" + mesh.port();

      api = new Gateway[API_REPLICAS];
      apiUrls = new String[API_REPLICAS];
      for (int i = 0; i < API_REPLICAS; i++) {
        Map<String, String> env = new HashMap<>(common);
        env.put("SVC_GATEWAY_MODE", "api");
        env.put("SVC_MESH_URL", meshUrl);
        env.put("SVC_PORT", Integer.toString(LocalPorts.freePort()));
        env.put("SVC_STATE_DIR", data.resolve("gateway-api-" + i).toString());
        apiEnv.add(env);
        api[i] = Gateway.start(GatewayConfig.fromEnv(env), TaskSettings.fromEnv(env));
        apiUrls[i] = "http://127.0.0.1:" + api[i].port();
      }
      started.push(this::closeApis);

      GatewayReporter reporter = new GatewayReporter(meshUrl);
      started.push(reporter);
      ExitHook logOnly =
          status -> System.err.println("scale-out: an actor asked to exit with " + status);
      for (int i = 0; i < INSTANCES; i++) {
        SinkActor sink =
            new SinkActor(sidecarConfig(common, Topics.SINK, data, i, meshUrl), reporter, logOnly);
        sink.start();
        started.push(sink);
      }
      SumpActor sump =
          new SumpActor(sidecarConfig(common, Topics.SUMP, data, 0, meshUrl), reporter, logOnly);
      sump.start();
      started.push(sump);
      for (String actor : ACTORS) {
        for (int i = 0; i < INSTANCES; i++) {
          SidecarConfig config = sidecarConfig(common, actor, data, i, meshUrl);
          RuntimeProcess runtime =
              RuntimeProcess.startReady(
                  root.resolve("runtime"),
                  root.resolve("runtime/examples"),
                  "text." + actor,
                  config.socketPath().getParent(),
                  Map.of(),
                  Duration.ofSeconds(60));
          started.push(runtime);
          RuntimeClient client = new RuntimeClient(config.socketPath());
          started.push(client);
          Sidecar sidecar = new Sidecar(config, client, reporter, logOnly, Duration.ofSeconds(60));
          sidecar.start();
          started.push(sidecar);
        }
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  private static SidecarConfig sidecarConfig(
      Map<String, String> common, String actor, Path data, int instance, String meshUrl) {
    Map<String, String> env = new HashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", common.get("KAFKA_BOOTSTRAP_SERVERS"));
    env.put("SVC_ACTOR_NAME", actor);
    env.put("SVC_NAMESPACE", common.get("SVC_NAMESPACE"));
    env.put("SVC_SOCKET_DIR", data.resolve("sockets/" + actor + "-" + instance).toString());
    env.put("SVC_GATEWAY_URL", meshUrl);
    env.put("SVC_TOPIC_REPLICATION_FACTOR", common.get("SVC_TOPIC_REPLICATION_FACTOR"));
    env.put("SVC_TOPIC_PARTITIONS", PARTITIONS);
    return SidecarConfig.fromEnv(env);
  }

  String namespace() {
    return namespace;
  }

  LocalKafkaCluster cluster() {
    return cluster;
  }

  List<String> apiUrls() {
    return List.of(apiUrls);
  }

  /**
   * Stops replica {@code i} (its SSE clients are cut and reconnect elsewhere) and starts it again
   * on the same port and state directory, as a rolling update replaces a pod.
   */
  synchronized void restartApi(int i) {
    api[i].close();
    api[i] =
        Gateway.start(GatewayConfig.fromEnv(apiEnv.get(i)), TaskSettings.fromEnv(apiEnv.get(i)));
  }

  private synchronized void closeApis() {
    for (Gateway g : api) {
      if (g != null) {
        g.close();
      }
    }
  }

  @Override
  public void close() {
    while (!started.isEmpty()) {
      try {
        started.pop().close();
      } catch (Exception e) {
        System.err.println("scale-out: stopping failed: " + e);
      }
    }
  }
}

package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.get;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Closing;
import io.taskmesh.devkit.LocalKafkaCluster;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.ExitHook;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.GroupListing;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two deployments on one three-broker cluster (replication 3, min ISR 2, as a platform team runs
 * it) that differ in nothing but {@code SVC_NAMESPACE}: each a gateway (fixed port, so it
 * advertises itself for forwarded queries), an echo actor (real Python runtime and sidecar) and
 * x-sink. Neither names a topic or an application id: everything derives from the namespace. Each
 * runs its tasks to the end, lists and reads only its own, never answers 503 for them, and answers
 * 404 for the other's. Team A runs a second gateway replica on {@code SVC_PORT=0}: a task id one
 * replica hands out resolves at once on the other, whatever port either bound.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NamespaceIsolationIT {
  private static final int TASKS = 4;

  /**
   * A read of an id created a moment ago waits for its task this long before its 404, since it may
   * be ours and still on its way to the fold. The other team's ids are that young here, so with the
   * default (30 s) each foreign read would take most of it and outlast the test's HTTP timeout.
   */
  private static final String NEW_TASK_WAIT = "3s";

  private static final ExitHook LOG_ONLY =
      status -> System.err.println("an actor asked to exit with " + status);

  @TempDir static Path dir;
  private static LocalKafkaCluster kafka;
  private static final List<AutoCloseable> open = new ArrayList<>();
  private static Deployment a;
  private static Deployment b;

  /** Team A's second gateway replica, started on port 0. */
  private static String a2;

  /** One team's stack and the ids of the tasks it started. */
  private record Deployment(String namespace, String base, List<String> tasks) {}

  @BeforeAll
  static void start() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    // the timeout ends a task no actor finishes, so a broken run fails instead of hanging
    Files.writeString(flows, "flows:\n  - {name: echo, entrypoint: echo, timeout: 60, mcp: {}}\n");
    String run = UUID.randomUUID().toString().substring(0, 8);
    kafka = LocalKafkaCluster.start(dir.resolve("kafka"), 3);
    a = deploy("team-a-" + run, flows);
    b = deploy("team-b-" + run, flows);
    a2 = replicaOnPort0(a.namespace(), flows);
    for (int i = 0; i < TASKS; i++) {
      a.tasks().add(TaskHttp.callTool(a.base(), "echo"));
      b.tasks().add(TaskHttp.callTool(b.base(), "echo"));
    }
  }

  @AfterAll
  static void stop() {
    // newest first: actors before their gateway
    List<AutoCloseable> reversed = new ArrayList<>(open);
    java.util.Collections.reverse(reversed);
    reversed.add(kafka);
    Closing.closeAll(reversed.toArray(AutoCloseable[]::new));
  }

  private static String mcpSession(String base) throws Exception {
    HttpResponse<String> init =
        TaskHttp.HTTP.send(
            TaskHttp.mcpPost(
                    base,
                    null,
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
                        + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
                        + "\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}")
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    return init.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  /** A second gateway of a deployment, on a port the system chooses. */
  private static String replicaOnPort0(String namespace, Path flows) {
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", kafka.bootstrapServers());
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_PORT", "0");
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_STATE_DIR", dir.resolve(namespace + "-state-2").toString());
    env.put("SVC_NAMESPACE", namespace);
    env.put("SVC_NEW_TASK_WAIT", NEW_TASK_WAIT);
    env.put("SVC_TOPIC_REPLICATION_FACTOR", Integer.toString(kafka.replicationFactor()));
    Gateway gateway = Gateway.start(GatewayConfig.fromEnv(env), TaskSettings.fromEnv(env));
    open.add(gateway);
    return "http://127.0.0.1:" + gateway.port();
  }

  private static Deployment deploy(String namespace, Path flows) throws Exception {
    Path root = Path.of(System.getProperty("taskmesh.root", "..")).toAbsolutePath().normalize();
    String bootstrap = kafka.bootstrapServers();
    String replication = Integer.toString(kafka.replicationFactor());
    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_PORT", Integer.toString(TaskHttp.freePort()));
    env.put("SVC_CONFIG_PATH", flows.toString());
    env.put("SVC_STATE_DIR", dir.resolve(namespace + "-state").toString());
    env.put("SVC_NAMESPACE", namespace);
    env.put("SVC_NEW_TASK_WAIT", NEW_TASK_WAIT);
    env.put("SVC_TOPIC_REPLICATION_FACTOR", replication);
    Gateway gateway = Gateway.start(GatewayConfig.fromEnv(env), TaskSettings.fromEnv(env));
    open.add(gateway);
    String base = "http://127.0.0.1:" + gateway.port();
    GatewayReporter reporter = new GatewayReporter(base);
    open.add(reporter);
    RuntimeProcess runtime =
        RuntimeProcess.startReady(
            root.resolve("runtime"),
            root.resolve("runtime/examples"),
            "echo.handle",
            dir.resolve(namespace + "-echo"),
            Map.of(),
            Duration.ofSeconds(60));
    open.add(runtime);
    RuntimeClient client = new RuntimeClient(runtime.socketPath());
    open.add(client);
    Sidecar echo =
        new Sidecar(
            actor(bootstrap, namespace, "echo", runtime.socketDir(), base, replication),
            client,
            reporter,
            LOG_ONLY,
            Duration.ofSeconds(60));
    open.add(echo);
    echo.start();
    SinkActor sink =
        new SinkActor(
            actor(bootstrap, namespace, Topics.SINK, dir, base, replication), reporter, LOG_ONLY);
    open.add(sink);
    sink.start();
    return new Deployment(namespace, base, new ArrayList<>());
  }

  /** An actor's config from the environment alone, as a deployment gives it. */
  private static SidecarConfig actor(
      String bootstrap, String namespace, String name, Path socketDir, String gateway, String rf) {
    return SidecarConfig.fromEnv(
        Map.of(
            "KAFKA_BOOTSTRAP_SERVERS", bootstrap,
            "SVC_NAMESPACE", namespace,
            "SVC_ACTOR_NAME", name,
            "SVC_SOCKET_DIR", socketDir.toString(),
            "SVC_GATEWAY_URL", gateway,
            "SVC_TOPIC_REPLICATION_FACTOR", rf));
  }

  @Test
  @Order(1)
  void aTaskIdHandedOutByOneReplicaResolvesAtOnceOnTheOtherOnPort0() throws Exception {
    List<String> fresh = new ArrayList<>();
    Map<String, String> mcpSessions = Map.of(a.base(), mcpSession(a.base()), a2, mcpSession(a2));
    for (int i = 0; i < 2 * TASKS; i++) {
      String maker = i % 2 == 0 ? a.base() : a2;
      String reader = i % 2 == 0 ? a2 : a.base();
      String id = TaskHttp.callTool(maker, "echo");
      fresh.add(id);
      HttpResponse<String> read = get(reader + "/tasks/" + id);
      assertThat(read.statusCode()).as("read right after creation: %s", read.body()).isEqualTo(200);
      JsonNode a2aTask =
          TaskHttp.json(
              post(reader + "/a2a/", A2aCalls.call("tasks/get", "{\"id\":\"" + id + "\"}")));
      assertThat(a2aTask.path("result").path("id").asText()).as("A2A: %s", a2aTask).isEqualTo(id);
      HttpResponse<String> mcpTask =
          TaskHttp.HTTP.send(
              TaskHttp.mcpPost(
                      reader,
                      mcpSessions.get(reader),
                      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/get\",\"params\":{\"taskId\":\""
                          + id
                          + "\"}}")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(mcpTask.body())
          .as("MCP tasks/get")
          .contains("\"taskId\":\"" + id)
          .doesNotContain("\"error\"");
      try (SseReader sse = SseReader.open(reader + "/stream/" + id, null)) {
        assertThat(sse.next(Duration.ofSeconds(30)).id())
            .as("stream right after creation")
            .isEqualTo("1");
      }
    }
    // the next test lists deployment a's tasks: these are among them, whatever is asserted here
    a.tasks().addAll(fresh);
    Set<String> ownedBySecond = new TreeSet<>();
    for (String id : fresh) {
      if (ownedBySecondAfterBothRead(id)) {
        ownedBySecond.add(id);
      }
    }
    // ids hash to partitions at random, so eight tasks all land on one replica's partitions about
    // one run in 25: start more until each replica holds one, as the assertion below needs
    for (int i = 0;
        i < 4 * TASKS && (ownedBySecond.isEmpty() || ownedBySecond.size() == fresh.size());
        i++) {
      String id = TaskHttp.callTool(i % 2 == 0 ? a.base() : a2, "echo");
      fresh.add(id);
      a.tasks().add(id);
      if (ownedBySecondAfterBothRead(id)) {
        ownedBySecond.add(id);
      }
    }
    assertThat(ownedBySecond)
        .as("the replica on port 0 holds some tasks, and the other reads them through it")
        .isNotEmpty()
        .hasSizeLessThan(fresh.size());
  }

  /**
   * Waits until both replicas of deployment a read task {@code id} as succeeded (one of them
   * through the other); whether the replica on port 0 holds it.
   */
  private static boolean ownedBySecondAfterBothRead(String id) throws Exception {
    for (String base : List.of(a.base(), a2)) {
      await(
          base + "/tasks/" + id,
          n -> n.get("status").asText().equals("succeeded"),
          Duration.ofSeconds(90));
    }
    return get(a2 + "/internal/tasks/" + id).statusCode() == 200;
  }

  @Test
  @Order(2)
  void eachDeploymentRunsListsReadsAndStreamsOnlyItsOwnTasks() throws Exception {
    for (Deployment d : List.of(a, b)) {
      Deployment other = d == a ? b : a;
      for (String id : d.tasks()) {
        JsonNode t =
            await(
                d.base() + "/tasks/" + id,
                n -> n.get("status").asText().equals("succeeded"),
                Duration.ofSeconds(90));
        assertThat(t.get("id").asText()).isEqualTo(id);
      }
      JsonNode list = TaskHttp.json(get(d.base() + "/tasks?limit=500"));
      Set<String> listed = new TreeSet<>();
      list.get("tasks").forEach(t -> listed.add(t.get("id").asText()));
      assertThat(listed)
          .as(d.namespace() + " lists its own tasks only")
          .isEqualTo(Set.copyOf(d.tasks()));
      assertThat(list.get("total").asInt()).isEqualTo(d.tasks().size());
      for (String foreign : other.tasks()) {
        assertThat(get(d.base() + "/tasks/" + foreign).statusCode())
            .as(d.namespace() + " reads " + foreign + " of " + other.namespace())
            .isEqualTo(404);
        assertThat(post(d.base() + "/tasks/" + foreign + "/cancel", "{}").statusCode())
            .as(d.namespace() + " cancels " + foreign)
            .isEqualTo(404);
      }
      assertThat(get(d.base() + "/stream/" + other.tasks().get(0)).statusCode()).isEqualTo(404);
      try (SseReader sse = SseReader.open(d.base() + "/stream/" + d.tasks().get(0), null)) {
        List<SseReader.Event> events = sse.readUntilClosed(Duration.ofSeconds(30));
        SseReader.Event last =
            events.stream()
                .filter(e -> "update".equals(e.event()))
                .reduce((x, y) -> y)
                .orElse(null);
        assertThat(last).isNotNull();
        assertThat(last.data()).contains("succeeded");
      }
    }
  }

  @Test
  @Order(3)
  void everyKafkaNameOfADeploymentCarriesItsNamespace() throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      Set<String> groups = new TreeSet<>();
      for (GroupListing g : admin.listGroups().all().get(30, TimeUnit.SECONDS)) {
        groups.add(g.groupId());
      }
      for (Deployment d : List.of(a, b)) {
        String ns = d.namespace();
        assertThat(topics)
            .contains(
                "svc." + ns + ".task-events",
                "svc." + ns + ".task-updates",
                "svc." + ns + ".gateway-tasks-changelog",
                "svc-" + ns + "-echo",
                "svc-" + ns + "-x-sink");
        assertThat(groups).contains("svc." + ns + ".gateway", "svc-" + ns + "-echo");
      }
    }
  }
}

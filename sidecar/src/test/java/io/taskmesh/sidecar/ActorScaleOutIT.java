package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two replicas of one actor, each a real sidecar with its own runtime and configured from the
 * environment alone: the actor topic it creates has the default partitions, the group splits them,
 * and both replicas handle envelopes. Each replica reports to a recorder of its own (the envelopes
 * name no gateway), which tells who handled what.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ActorScaleOutIT {
  private static final int ENVELOPES = 60;

  @Test
  void twoSidecarsOfOneActorShareItsTopic() throws Exception {
    try (TestMesh mesh = new TestMesh();
        GatewayRecorder first = new GatewayRecorder();
        GatewayRecorder second = new GatewayRecorder();
        GatewayReporter toFirst = new GatewayReporter(first.url());
        GatewayReporter toSecond = new GatewayReporter(second.url())) {
      Path examples = TestMesh.repoRoot().resolve("runtime/examples");
      RuntimeProcess rt1 = mesh.runtime(examples, "echo.handle");
      RuntimeProcess rt2 = mesh.runtime(examples, "echo.handle");
      List<Sidecar> replicas =
          List.of(
              replica(mesh, rt1, first.url(), toFirst), replica(mesh, rt2, second.url(), toSecond));
      String topic = mesh.topic("echo");
      try (Admin admin =
          Admin.create(
              Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, mesh.kafka.bootstrapServers()))) {
        assertThat(
                admin
                    .describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions())
            .hasSize(SidecarConfig.DEFAULT_ACTOR_TOPIC_PARTITIONS);
        // both members hold partitions before the envelopes go out
        Await.until(
            () ->
                admin
                    .describeConsumerGroups(List.of(topic))
                    .all()
                    .get(10, TimeUnit.SECONDS)
                    .get(topic),
            (ConsumerGroupDescription g) ->
                g.members().size() == 2
                    && g.members().stream()
                        .allMatch(m -> !m.assignment().topicPartitions().isEmpty()),
            Duration.ofSeconds(60),
            "both replicas in the group with partitions");
      }
      for (int i = 0; i < ENVELOPES; i++) {
        // no gateway header: each sidecar reports to its own recorder
        mesh.send(
            new io.taskmesh.schemas.Envelope(
                "env-" + i,
                null,
                io.taskmesh.schemas.Route.start("echo", List.of()),
                null,
                io.taskmesh.schemas.Json.tree(Map.of("text", "hi " + i)),
                Map.of()));
      }
      Set<String> sunk =
          mesh.read(mesh.topic("x-sink"), ENVELOPES, Duration.ofSeconds(90)).stream()
              .map(r -> r.key())
              .collect(Collectors.toCollection(TreeSet::new));
      assertThat(sunk).hasSize(ENVELOPES);
      Set<String> byFirst = handled(first);
      Set<String> bySecond = handled(second);
      assertThat(byFirst).as("envelopes the first replica handled").isNotEmpty();
      assertThat(bySecond).as("envelopes the second replica handled").isNotEmpty();
      Set<String> all = new HashSet<>(byFirst);
      all.addAll(bySecond);
      assertThat(all).isEqualTo(sunk);
      assertThat(replicas).allMatch(Sidecar::running);
    }
  }

  private static Sidecar replica(
      TestMesh mesh, RuntimeProcess rt, String gatewayUrl, GatewayReporter reporter) {
    Map<String, String> env = new HashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", mesh.kafka.bootstrapServers());
    env.put("SVC_NAMESPACE", mesh.namespace);
    env.put("SVC_ACTOR_NAME", "echo");
    env.put("SVC_SOCKET_DIR", rt.socketDir().toString());
    env.put("SVC_GATEWAY_URL", gatewayUrl);
    RuntimeClient client = new RuntimeClient(rt.socketPath());
    Sidecar s =
        new Sidecar(
            SidecarConfig.fromEnv(env),
            client,
            reporter,
            status -> {
              throw new AssertionError("unexpected exit " + status);
            },
            Duration.ofSeconds(30));
    mesh.closeLater(client);
    mesh.closeLater(s);
    s.start();
    return s;
  }

  /** Ids of the envelopes whose 'completed' progress reached this recorder. */
  private static Set<String> handled(GatewayRecorder recorder) {
    return recorder.calls("progress").stream()
        .filter(c -> "completed".equals(c.body().path("status").asText()))
        .map(GatewayRecorder.Call::id)
        .collect(Collectors.toSet());
  }
}

package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalKafkaCluster;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ./taskmesh dev --brokers 3}: the dev stack (the {@code shout} pipeline) on three real
 * brokers. Tasks keep flowing while one broker is killed (-9) and restarted, and every topic the
 * stack created, Streams' internal ones included, has three replicas of which two must be in sync.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ThreeBrokerDevIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    // the shout flow's three actors: a route across brokers, without the examples' other nine
    // actors to start and stop
    Path config = TestStacks.shoutPipeline(data.resolve("pipeline"));
    stack = TestStacks.onOwnCluster(config, data, "it", 3);
    base = stack.gatewayUrl();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void everyTaskEndsWhileABrokerIsKilledAndRestarted() throws Exception {
    LocalKafkaCluster cluster = stack.kafkaCluster();
    assertThat(cluster.size()).isEqualTo(3);
    List<String> ids = new ArrayList<>();
    submit(ids, 3);
    LocalKafka victim = cluster.node(0);
    victim.kill();
    submit(ids, 3);
    victim.restart();
    submit(ids, 3);

    for (String id : ids) {
      JsonNode task =
          Await.until(
              () -> getJson("/tasks/" + id),
              t -> TaskStatus.fromWire(t.path("status").asText()).isFinal(),
              Duration.ofSeconds(90),
              "task " + id + " never ended");
      assertThat(task.get("status").asText()).as(task.toString()).isEqualTo("succeeded");
      assertThat(task.get("result").get("text").asText()).isEqualTo("FED CBA");
    }
    assertEveryTopicIsReplicatedThreeTimesWithTwoInSync(cluster);
  }

  private static void assertEveryTopicIsReplicatedThreeTimesWithTwoInSync(LocalKafkaCluster cluster)
      throws Exception {
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
      Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      // the actors' topics, the task topics and the task view's changelogs (Streams' own)
      assertThat(topics).anyMatch(t -> t.contains("changelog")).anyMatch(t -> t.contains("upper"));
      Collection<TopicDescription> described =
          admin.describeTopics(topics).allTopicNames().get(30, TimeUnit.SECONDS).values();
      assertThat(described)
          .allSatisfy(
              d ->
                  assertThat(d.partitions())
                      .allSatisfy(p -> assertThat(p.replicas()).as(d.name()).hasSize(3)));
      List<ConfigResource> resources =
          topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
      Map<ConfigResource, Config> configs =
          admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
      assertThat(configs)
          .allSatisfy(
              (r, c) ->
                  assertThat(c.get(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG).value())
                      .as(r.name())
                      .isEqualTo("2"));
    }
  }

  private static void submit(List<String> ids, int n) {
    for (int i = 0; i < n; i++) {
      // with a broker just killed, the gateway's write may wait for leaders to move: retried until
      // accepted
      ids.add(
          Await.until(
              () -> callTool("shout", "{\"text\":\"abc def\"}"),
              id -> !id.isEmpty(),
              Duration.ofSeconds(60),
              "the gateway never accepted a task"));
    }
  }

  private static String callTool(String name, String args) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                .header("Content-Type", "application/json")
                .timeout(Duration.ofSeconds(30))
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"" + name + "\",\"arguments\":" + args + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(r.statusCode() + " " + r.body());
    }
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  private static JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(r.statusCode() + " " + r.body());
    }
    return Json.MAPPER.readTree(r.body());
  }
}

package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.get;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A2A push notifications across two gateway replicas on one broker (4 task partitions): a config
 * registered on replica A is listed on B, each state change of the task is delivered once (by the
 * replica that owns the task, not once per replica), a receiver that answers 500 twice gets the
 * third attempt with the token, a 1.0 config gets the 1.0 StreamResponse form, and a restarted
 * replica still lists the config.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class A2aPushReplicasIT {
  private static final String[] V1 = {"A2A-Version", "1.0", "Content-Type", "application/json"};

  /**
   * How long a duplicate would take at most to arrive: the owner-less wait of a push is far
   * shorter.
   */
  private static final Duration QUIET = Duration.ofSeconds(3);

  @TempDir static Path dir;
  private static Map<String, String> envA;
  private static Gateway a;
  private static Gateway b;
  private static String baseA;
  private static String baseB;
  private static HttpServer receiver;

  /** Every POST to /hook, failed or not: {token, body}. */
  private static final LinkedBlockingQueue<String[]> accepted = new LinkedBlockingQueue<>();

  private static final AtomicInteger hookCalls = new AtomicInteger();
  private static final LinkedBlockingQueue<String> acceptedV1 = new LinkedBlockingQueue<>();

  @BeforeAll
  static void start() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        ex -> {
          byte[] body = ex.getRequestBody().readAllBytes();
          // the first two POSTs fail: the third attempt of the first push is the one that delivers
          boolean fail = hookCalls.incrementAndGet() <= 2;
          if (!fail) {
            accepted.add(
                new String[] {
                  ex.getRequestHeaders().getFirst("X-A2A-Notification-Token"),
                  new String(body, StandardCharsets.UTF_8)
                });
          }
          ex.sendResponseHeaders(fail ? 500 : 200, -1);
          ex.close();
        });
    receiver.createContext(
        "/v1hook",
        ex -> {
          acceptedV1.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    receiver.start();
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        "flows:\n  - {name: echo, entrypoint: echo, route_next: [upper], mcp: {}, a2a: {}}\n");
    String prefix = "push-" + UUID.randomUUID().toString().substring(0, 8);
    envA = TaskHttp.env(prefix, dir.resolve("state-a"), flows, TaskHttp.freePort());
    Map<String, String> envB =
        TaskHttp.env(prefix, dir.resolve("state-b"), flows, TaskHttp.freePort());
    for (Map<String, String> env : List.of(envA, envB)) {
      env.put("SVC_TASK_TOPIC_PARTITIONS", "4");
      env.put("SVC_A2A_PUSH_ALLOW_PRIVATE", "true");
    }
    a = TaskHttp.start(envA);
    b = TaskHttp.start(envB);
    baseA = "http://127.0.0.1:" + a.port();
    baseB = "http://127.0.0.1:" + b.port();
  }

  @AfterAll
  static void stop() {
    for (Gateway g : new Gateway[] {a, b}) {
      if (g != null) {
        g.close();
      }
    }
    if (receiver != null) {
      receiver.stop(0);
    }
  }

  @Test
  void aConfigSetOnAIsListedOnBDeliveredOncePerUpdateWithRetriesAndKeptOverARestart()
      throws Exception {
    String id = taskOwnedBy(baseB);
    String hook = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
    JsonNode set =
        rpc(
            baseA,
            "tasks/pushNotificationConfig/set",
            "{\"taskId\":\""
                + id
                + "\",\"pushNotificationConfig\":"
                + "{\"id\":\"c1\",\"url\":\""
                + hook
                + "\",\"token\":\"tok-1\"}}");
    assertThat(set.at("/result/pushNotificationConfig/id").asText())
        .as(set.toString())
        .isEqualTo("c1");
    JsonNode listedOnB =
        Await.until(
            () -> rpc(baseB, "tasks/pushNotificationConfig/list", "{\"id\":\"" + id + "\"}"),
            n -> n.at("/result").size() == 1,
            Duration.ofSeconds(20),
            "config c1 never listed on B");
    assertThat(listedOnB.at("/result/0/pushNotificationConfig/url").asText()).isEqualTo(hook);
    HttpResponse<String> v1 =
        send(
            baseB + "/a2a/v1",
            "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
                + "\"CreateTaskPushNotificationConfig\",\"params\":{\"taskId\":\""
                + id
                + "\",\"id\":\"c2\",\"url\":\""
                + hook.replace("/hook", "/v1hook")
                + "\"}}",
            V1);
    assertThat(TaskHttp.json(v1).at("/result/id").asText()).as(v1.body()).isEqualTo("c2");

    assertThat(
            post(
                    baseA + "/mesh/" + id + "/progress",
                    TaskHttp.progress("", "echo", "upper", "received"))
                .statusCode())
        .isEqualTo(200);
    String[] working = accepted.poll(30, TimeUnit.SECONDS);
    assertThat(working).as("the third attempt delivers").isNotNull();
    assertThat(hookCalls.get()).isEqualTo(3);
    assertThat(working[0]).isEqualTo("tok-1");
    JsonNode task = Json.MAPPER.readTree(working[1]);
    assertThat(task.get("id").asText()).isEqualTo(id);
    assertThat(task.get("kind").asText()).isEqualTo("task");
    assertThat(task.at("/status/state").asText()).isEqualTo("working");
    String v1Working = acceptedV1.poll(30, TimeUnit.SECONDS);
    assertThat(v1Working).isNotNull();
    assertThat(Json.MAPPER.readTree(v1Working).at("/task/status/state").asText())
        .isEqualTo("TASK_STATE_WORKING");

    a.close();
    a = TaskHttp.start(envA);
    JsonNode afterRestart =
        rpc(
            baseA,
            "tasks/pushNotificationConfig/get",
            "{\"id\":\"" + id + "\",\"pushNotificationConfigId\":\"c1\"}");
    assertThat(afterRestart.at("/result/pushNotificationConfig/token").asText())
        .as(afterRestart.toString())
        .isEqualTo("tok-1");

    post(
        baseA + "/mesh/" + id + "/final",
        "{\"id\":\"" + id + "\",\"status\":\"succeeded\",\"result\":{\"n\":1}}");
    String[] completed = accepted.poll(30, TimeUnit.SECONDS);
    assertThat(completed).isNotNull();
    assertThat(Json.MAPPER.readTree(completed[1]).at("/status/state").asText())
        .isEqualTo("completed");
    assertThat(
            Json.MAPPER
                .readTree(acceptedV1.poll(30, TimeUnit.SECONDS))
                .at("/task/status/state")
                .asText())
        .isEqualTo("TASK_STATE_COMPLETED");
    // absence of a second delivery can only be shown by waiting: a replica that is not the owner
    // would post right after the owner, well within this window
    assertThat(accepted.poll(QUIET.toMillis(), TimeUnit.MILLISECONDS))
        .as("one delivery per update")
        .isNull();
    assertThat(acceptedV1).isEmpty();
    assertThat(hookCalls.get()).isEqualTo(4);
  }

  /** Starts tasks on A until one is owned by the replica at {@code base}. */
  private static String taskOwnedBy(String base) throws Exception {
    List<String> tried = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      JsonNode r = TaskHttp.json(post(baseA + "/a2a/", A2aCalls.send("m-" + i, "hi", false)));
      String id = r.at("/result/id").asText();
      assertThat(id).as(r.toString()).isNotEmpty();
      await(baseA + "/tasks/" + id, n -> true, Duration.ofSeconds(60));
      // the owner answers its internal route 200; another replica answers 503
      if (get(base + "/internal/tasks/" + id).statusCode() == 200) {
        return id;
      }
      tried.add(id);
    }
    throw new AssertionError("no task of " + tried + " is owned by " + base);
  }

  private static JsonNode rpc(String base, String method, String params) throws Exception {
    return TaskHttp.json(post(base + "/a2a/", A2aCalls.call(method, params)));
  }

  private static HttpResponse<String> send(String url, String body, String... headers)
      throws Exception {
    return TaskHttp.HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .headers(headers)
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}

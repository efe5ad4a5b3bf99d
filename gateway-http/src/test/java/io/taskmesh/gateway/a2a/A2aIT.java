package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A2A over a real gateway and broker; sidecar reports and FLY are posted by the test. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class A2aIT {
  static final String FLOWS =
      """
      flows:
        - name: echo
          entrypoint: echo
          description: returns its input
          a2a: {}
        - name: summarize
          entrypoint: summarize
          a2a: {tags: [text]}
        - name: tool-only
          entrypoint: echo
          mcp: {}
      """;
  @TempDir static Path dir;
  static A2aHarness h;
  static String[] alice;
  static String[] bob;
  static final String[] KEY = {"X-API-Key", A2aHarness.API_KEY};

  @BeforeAll
  static void start() throws Exception {
    h = new A2aHarness(dir, FLOWS, Map.of());
    alice = new String[] {"Authorization", "Bearer " + h.token("alice")};
    bob = new String[] {"Authorization", "Bearer " + h.token("bob")};
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void agentCardHasEverySpecFieldAndOneSkillPerA2aFlowAndFollowsReloads() throws Exception {
    for (String path : List.of("/.well-known/agent.json", "/.well-known/agent-card.json")) {
      HttpResponse<String> r = h.get(path);
      assertThat(r.statusCode()).as("public, no credentials").isEqualTo(200);
      JsonNode card = Json.MAPPER.readTree(r.body());
      assertThat(card.get("name").asText()).isEqualTo("taskmesh");
      assertThat(card.get("version").asText()).isNotBlank();
      assertThat(card.get("protocolVersion").asText()).isEqualTo("0.3.0");
      assertThat(card.get("url").asText()).isEqualTo(h.base + "/a2a/");
      assertThat(card.get("preferredTransport").asText()).isEqualTo("JSONRPC");
      // 1.0 interfaces first (JSON-RPC, HTTP+JSON at /a2a/v1), then 0.3 JSON-RPC at /a2a/
      JsonNode interfaces = card.get("supportedInterfaces");
      assertThat(interfaces.get(0).get("protocolBinding").asText()).isEqualTo("JSONRPC");
      assertThat(interfaces.get(0).get("url").asText()).isEqualTo(h.base + "/a2a/v1");
      assertThat(interfaces.get(0).get("protocolVersion").asText()).isEqualTo("1.0");
      assertThat(interfaces.get(2).get("protocolBinding").asText()).isEqualTo("JSONRPC");
      assertThat(interfaces.get(2).get("url").asText()).isEqualTo(h.base + "/a2a/");
      assertThat(interfaces.get(2).get("protocolVersion").asText()).isEqualTo("0.3");
      assertThat(card.get("capabilities").get("streaming").asBoolean()).isTrue();
      assertThat(card.get("capabilities").get("extendedAgentCard").asBoolean()).isTrue();
      assertThat(card.get("capabilities").get("pushNotifications").asBoolean()).isTrue();
      assertThat(card.at("/securitySchemes/apiKey/apiKeySecurityScheme/name").asText())
          .isEqualTo("X-API-Key");
      assertThat(card.at("/securitySchemes/apiKey/apiKeySecurityScheme/location").asText())
          .isEqualTo("header");
      assertThat(card.at("/securitySchemes/bearer/httpAuthSecurityScheme/bearerFormat").asText())
          .isEqualTo("JWT");
      assertThat(card.get("security").toString()).isEqualTo("[{\"apiKey\":[]},{\"bearer\":[]}]");
      assertThat(card.get("skills"))
          .extracting(s -> s.get("id").asText())
          .containsExactly("echo", "summarize");
    }
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        FLOWS.replace(
            "  - name: summarize\n    entrypoint: summarize\n    a2a: {tags: [text]}\n", ""));
    try {
      awaitSkills("echo");
    } finally {
      Files.writeString(flows, FLOWS);
      awaitSkills("echo", "summarize");
    }
  }

  private static void awaitSkills(String... names) {
    // the config poll runs every 200 ms
    Await.until(
        () -> {
          List<String> ids = new ArrayList<>();
          for (JsonNode s :
              Json.MAPPER.readTree(h.get("/.well-known/agent-card.json").body()).get("skills")) {
            ids.add(s.get("id").asText());
          }
          return ids;
        },
        ids -> ids.equals(List.of(names)),
        Duration.ofSeconds(20),
        "skills " + List.of(names));
  }

  @Test
  void credentialsAreRequiredAndEitherMechanismPasses() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"nope\"}}";
    assertThat(h.rpc(body).statusCode()).isEqualTo(401);
    assertThat(h.rpc(body, "X-API-Key", "wrong").statusCode()).isEqualTo(401);
    assertThat(h.rpc(body, "X-API-Key", A2aHarness.API_KEY + "x").statusCode()).isEqualTo(401);
    assertThat(h.rpc(body, "Authorization", "Bearer not.a.jwt").statusCode()).isEqualTo(401);
    RSAKey other = new RSAKeyGenerator(2048).keyID("k1").generate();
    Date later = new Date(System.currentTimeMillis() + 600_000);
    assertThat(
            h.rpc(
                    body,
                    "Authorization",
                    "Bearer "
                        + A2aHarness.token(
                            "eve", A2aHarness.ISSUER, A2aHarness.AUDIENCE, later, other))
                .statusCode())
        .as("signed by another key")
        .isEqualTo(401);
    assertThat(
            h.rpc(
                    body,
                    "Authorization",
                    "Bearer "
                        + A2aHarness.token(
                            "eve", "https://other", A2aHarness.AUDIENCE, later, h.key))
                .statusCode())
        .as("wrong iss")
        .isEqualTo(401);
    assertThat(
            h.rpc(
                    body,
                    "Authorization",
                    "Bearer " + A2aHarness.token("eve", A2aHarness.ISSUER, "other", later, h.key))
                .statusCode())
        .as("wrong aud")
        .isEqualTo(401);
    assertThat(
            h.rpc(
                    body,
                    "Authorization",
                    "Bearer "
                        + A2aHarness.token(
                            "eve",
                            A2aHarness.ISSUER,
                            A2aHarness.AUDIENCE,
                            new Date(System.currentTimeMillis() - 600_000),
                            h.key))
                .statusCode())
        .as("expired")
        .isEqualTo(401);
    String unsigned =
        b64("{\"alg\":\"none\"}")
            + "."
            + b64(
                "{\"sub\":\"eve\",\"iss\":\""
                    + A2aHarness.ISSUER
                    + "\",\"aud\":\""
                    + A2aHarness.AUDIENCE
                    + "\",\"exp\":"
                    + (later.getTime() / 1000)
                    + "}")
            + ".";
    assertThat(h.rpc(body, "Authorization", "Bearer " + unsigned).statusCode())
        .as("alg none")
        .isEqualTo(401);
    // HS256 with the public key's bytes as the HMAC secret (RS/HS confusion)
    com.nimbusds.jwt.SignedJWT hs =
        new com.nimbusds.jwt.SignedJWT(
            new com.nimbusds.jose.JWSHeader.Builder(com.nimbusds.jose.JWSAlgorithm.HS256)
                .keyID("k1")
                .build(),
            new com.nimbusds.jwt.JWTClaimsSet.Builder()
                .subject("eve")
                .issuer(A2aHarness.ISSUER)
                .audience(A2aHarness.AUDIENCE)
                .expirationTime(later)
                .build());
    hs.sign(
        new com.nimbusds.jose.crypto.MACSigner(
            h.key.toPublicJWK().toJSONString().repeat(2).getBytes(StandardCharsets.UTF_8)));
    assertThat(h.rpc(body, "Authorization", "Bearer " + hs.serialize()).statusCode())
        .as("HS256")
        .isEqualTo(401);
    assertThat(h.rpc(body, KEY).statusCode()).isEqualTo(200);
    assertThat(h.rpc(body, alice).statusCode()).isEqualTo(200);
    assertThat(h.rpc(body, "X-API-Key", "wrong", "Authorization", alice[1]).statusCode())
        .as("either passes")
        .isEqualTo(200);
    assertThat(h.get("/.well-known/agent.json").statusCode()).isEqualTo(200);
  }

  @Test
  void keySetIsRefetchedForAnUnknownKid() throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":{\"id\":\"nope\"}}";
    assertThat(h.rpc(body, alice).statusCode()).isEqualTo(200); // key set k1 cached
    RSAKey rotated = new RSAKeyGenerator(2048).keyID("k2-" + System.nanoTime()).generate();
    h.served = new JWKSet(List.of(h.key.toPublicJWK(), rotated.toPublicJWK()));
    String token =
        A2aHarness.token(
            "carol",
            A2aHarness.ISSUER,
            A2aHarness.AUDIENCE,
            new Date(System.currentTimeMillis() + 600_000),
            rotated);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    int status = 0;
    while (System.nanoTime() < deadline
        && (status = h.rpc(body, "Authorization", "Bearer " + token).statusCode()) != 200) {
      Thread.sleep(250); // refetches are rate limited to one per 5 s
    }
    assertThat(status).isEqualTo(200);
  }

  @Test
  void messageStreamCarriesStatusFlyChunksAndTheFinalEventsThenCloses() throws Exception {
    try (A2aHarness.Stream s =
        h.stream(
            A2aHarness.send(
                "message/stream",
                "req-1",
                "[{\"kind\":\"text\",\"text\":\"hello\"},{\"kind\":\"text\",\"text\":\"world\"}]"),
            alice)) {
      assertThat(s.response.statusCode()).isEqualTo(200);
      assertThat(s.response.headers().firstValue("Content-Type").orElse(""))
          .startsWith("text/event-stream");
      JsonNode first = s.next();
      assertThat(first.get("jsonrpc").asText()).isEqualTo("2.0");
      assertThat(first.get("id").isTextual()).as("id echoed with its type").isTrue();
      assertThat(first.get("id").asText()).isEqualTo("req-1");
      JsonNode task = first.get("result");
      assertThat(task.get("kind").asText()).isEqualTo("task");
      assertThat(task.at("/status/state").asText()).isEqualTo("submitted");
      String id = task.get("id").asText();
      JsonNode stored = h.awaitState(id, "submitted", alice);
      assertThat(stored.at("/history/0/parts/0/data/text").asText())
          .as("text parts joined with \\n")
          .isEqualTo("hello\nworld");

      h.progress(id, "echo", "received");
      JsonNode working = s.next().get("result");
      assertThat(working.get("kind").asText()).isEqualTo("status-update");
      assertThat(working.at("/status/state").asText()).isEqualTo("working");
      assertThat(working.get("final").asBoolean()).isFalse();
      h.progress(id, "echo", "processing"); // progress: not forwarded
      h.post("/mesh/" + id + "/fly", "{\"partial\":true,\"text\":\"Hel\"}");
      h.post("/mesh/" + id + "/fly", "{\"partial\":true,\"text\":\"lo\"}");
      JsonNode chunk1 = s.next().get("result");
      JsonNode chunk2 = s.next().get("result");
      assertThat(chunk1.get("kind").asText()).isEqualTo("artifact-update");
      assertThat(chunk1.at("/artifact/artifactId").asText()).isEqualTo("fly-stream");
      assertThat(chunk1.get("append").asBoolean()).isFalse();
      assertThat(chunk1.get("lastChunk").asBoolean()).isFalse();
      assertThat(chunk1.at("/artifact/parts/0/text").asText()).isEqualTo("Hel");
      assertThat(chunk2.get("append").asBoolean()).isTrue();
      assertThat(chunk2.at("/artifact/parts/0/text").asText()).isEqualTo("lo");
      h.finish(id, "{\"answer\":42}");
      List<JsonNode> rest = s.rest();
      assertThat(rest).hasSize(3);
      JsonNode last = rest.get(0).get("result");
      assertThat(last.get("kind").asText()).isEqualTo("artifact-update");
      assertThat(last.at("/artifact/artifactId").asText()).isEqualTo("fly-stream");
      assertThat(last.get("lastChunk").asBoolean()).isTrue();
      assertThat(last.get("append").asBoolean()).isTrue();
      JsonNode result = rest.get(1).get("result");
      assertThat(result.at("/artifact/artifactId").asText()).isEqualTo("result");
      assertThat(result.at("/artifact/parts/0/data/answer").asInt()).isEqualTo(42);
      assertThat(result.at("/artifact/parts/1/text").asText()).isEqualTo("{\"answer\":42}");
      JsonNode fin = rest.get(2).get("result");
      assertThat(fin.get("kind").asText()).isEqualTo("status-update");
      assertThat(fin.at("/status/state").asText()).isEqualTo("completed");
      assertThat(fin.get("final").asBoolean()).isTrue();
      assertThat(s.rawLines())
          .filteredOn(l -> !l.isEmpty() && !l.startsWith(":"))
          .allMatch(l -> l.startsWith("data: "));
      JsonNode done = h.awaitState(id, "completed", alice);
      assertThat(done.at("/artifacts/0/parts/0/data/answer").asInt()).isEqualTo(42);
    }
  }

  @Test
  void messageSendStreamsUntilInputRequiredWhenTheClientAcceptsSse() throws Exception {
    try (A2aHarness.Stream s =
        h.stream(
            A2aHarness.send(
                "message/send",
                99,
                "[{\"kind\":\"data\",\"data\":{\"a\":1}},{\"kind\":\"data\",\"data\":{\"b\":2}}]"),
            KEY)) {
      JsonNode first = s.next();
      assertThat(first.get("id").isInt()).as("numeric id stays numeric").isTrue();
      String id = first.at("/result/id").asText();
      JsonNode stored = h.awaitState(id, "submitted", KEY);
      assertThat(stored.at("/history/0/parts/0/data").toString()).isEqualTo("{\"a\":1,\"b\":2}");
      h.post(
          "/mesh/" + id + "/final",
          "{\"id\":\"" + id + "\",\"status\":\"paused\",\"current_actor_name\":\"x-pause\"}");
      List<JsonNode> rest = s.rest();
      assertThat(rest).hasSize(1);
      assertThat(rest.get(0).at("/result/status/state").asText()).isEqualTo("input-required");
      assertThat(rest.get(0).at("/result/final").asBoolean()).isTrue();
      // a message/send with the task id resumes it: working at once, and x-pause's resume record
      String resumeParams =
          "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m2\","
              + "\"taskId\":\""
              + id
              + "\",\"parts\":[{\"kind\":\"text\",\"text\":\"go on\"}]},"
              + "\"configuration\":{\"blocking\":false}}";
      JsonNode resume = h.call("message/send", resumeParams, KEY);
      assertThat(resume.at("/result/id").asText()).as(resume.toString()).isEqualTo(id);
      assertThat(resume.at("/result/status/state").asText()).isEqualTo("working");
      h.awaitState(id, "working", KEY);
      JsonNode record = resumeRecord(io.taskmesh.schemas.Topics.pauseResume(h.namespace), id);
      assertThat(record.get("input").toString()).isEqualTo("{\"text\":\"go on\"}");
      // a second resume while it works is refused; the task ends as usual
      assertThat(h.call("message/send", resumeParams, KEY).at("/error/code").asInt())
          .isEqualTo(-32004);
      h.post(
          "/mesh/" + id + "/final",
          "{\"id\":\"" + id + "\",\"status\":\"succeeded\",\"result\":{\"ok\":1}}");
      h.awaitState(id, "completed", KEY);
      assertThat(h.call("message/send", resumeParams, KEY).at("/error/message").asText())
          .contains("terminal");
    }
  }

  @Test
  void messageSendAnswersOneJsonResponseToNonSseClients() throws Exception {
    String[] frank = {"Authorization", "Bearer " + h.token("frank")};
    @SuppressWarnings("unchecked")
    HttpResponse<String>[] out = new HttpResponse[1];
    Thread client =
        new Thread(
            () -> {
              try {
                out[0] =
                    h.rpc(
                        A2aHarness.send("message/send", 5, "[{\"kind\":\"text\",\"text\":\"hi\"}]"),
                        frank);
              } catch (Exception e) {
                throw new RuntimeException(e);
              }
            });
    client.start();
    String id = awaitNewestTask(frank);
    h.progress(id, "echo", "processing");
    h.finish(id, "\"done\"");
    client.join(30_000);
    assertThat(out[0].statusCode()).isEqualTo(200);
    assertThat(out[0].headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/json");
    JsonNode r = Json.MAPPER.readTree(out[0].body());
    assertThat(r.get("id").asInt()).isEqualTo(5);
    assertThat(r.at("/result/status/state").asText()).isEqualTo("completed");
    assertThat(r.at("/result/artifacts/0/parts/0/data/result").asText()).isEqualTo("done");

    JsonNode nonBlocking =
        h.call(
            "message/send",
            "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m3\","
                + "\"parts\":[{\"kind\":\"text\",\"text\":\"x\"}]},\"metadata\":{\"skill\":\"echo\"},"
                + "\"configuration\":{\"blocking\":false}}",
            KEY);
    assertThat(nonBlocking.at("/result/status/state").asText()).isEqualTo("submitted");
  }

  @Test
  void aNonBlockingSendIsVisibleToTheCallsThatFollowIt() throws Exception {
    // read-your-writes: a tasks/get or tasks/cancel sent right after the answer finds the task
    // (it used to race the fold of the created event and answer task-not-found now and then)
    for (int i = 0; i < 20; i++) {
      JsonNode sent =
          h.call(
              "message/send",
              "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"nb"
                  + i
                  + "\",\"parts\":[{\"kind\":\"text\",\"text\":\"x\"}]},\"metadata\":{\"skill\":\"echo\"},"
                  + "\"configuration\":{\"blocking\":false}}",
              alice);
      String id = sent.at("/result/id").asText();
      assertThat(sent.at("/result/status/state").asText()).isEqualTo("submitted");
      assertThat(h.call("tasks/get", "{\"id\":\"" + id + "\"}", alice).at("/result/id").asText())
          .isEqualTo(id);
      JsonNode canceled = h.call("tasks/cancel", "{\"id\":\"" + id + "\"}", alice);
      assertThat(canceled.at("/result/status/state").asText())
          .as(canceled.toString())
          .isEqualTo("canceled");
    }
  }

  /**
   * The value of the resume record for {@code id} on x-pause's resume topic (read from the start).
   */
  private static JsonNode resumeRecord(String topic, String id) throws Exception {
    java.util.Properties p = new java.util.Properties();
    p.put("bootstrap.servers", io.taskmesh.devkit.LocalKafka.shared().bootstrapServers());
    p.put("group.id", "a2a-resume-" + java.util.UUID.randomUUID());
    p.put("auto.offset.reset", "earliest");
    try (org.apache.kafka.clients.consumer.KafkaConsumer<String, String> c =
        new org.apache.kafka.clients.consumer.KafkaConsumer<>(
            p,
            new org.apache.kafka.common.serialization.StringDeserializer(),
            new org.apache.kafka.common.serialization.StringDeserializer())) {
      c.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (System.nanoTime() < deadline) {
        for (var r : c.poll(java.time.Duration.ofMillis(200))) {
          if (id.equals(r.key())) {
            JsonNode v = Json.MAPPER.readTree(r.value());
            assertThat(v.get("id").asText()).isEqualTo(id);
            return v;
          }
        }
      }
    }
    throw new AssertionError("no resume record for " + id + " on " + topic);
  }

  /** The newest task of the caller, as soon as one newer than the call exists. */
  private static String awaitNewestTask(String... auth) {
    // polling the read model
    JsonNode tasks =
        Await.until(
            () ->
                h.call("tasks/list", "{\"pageSize\":1,\"status\":\"submitted\"}", auth)
                    .at("/result/tasks"),
            t -> t.size() == 1,
            Duration.ofSeconds(20),
            "a submitted task");
    return tasks.get(0).get("id").asText();
  }

  @Test
  void tasksAreTheCallersOnly() throws Exception {
    JsonNode created = h.call("message/send", nonBlocking("echo"), alice);
    String id = created.at("/result/id").asText();
    h.awaitState(id, "submitted", alice);
    for (String[] other : List.of(bob, KEY)) {
      assertThat(h.call("tasks/get", "{\"id\":\"" + id + "\"}", other).at("/error/code").asInt())
          .isEqualTo(-32001);
      assertThat(h.call("tasks/cancel", "{\"id\":\"" + id + "\"}", other).at("/error/code").asInt())
          .isEqualTo(-32001);
      assertThat(
              h.call("tasks/pushNotificationConfig/list", "{\"id\":\"" + id + "\"}", other)
                  .at("/error/code")
                  .asInt())
          .isEqualTo(-32001);
      try (A2aHarness.Stream s =
          h.stream(
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tasks/resubscribe\",\"params\":{\"id\":\""
                  + id
                  + "\"}}",
              other)) {
        List<JsonNode> events = s.rest();
        assertThat(events).hasSize(1);
        assertThat(events.get(0).at("/error/code").asInt()).isEqualTo(-32001);
      }
      JsonNode unknown = h.call("tasks/get", "{\"id\":\"no-such-task\"}", other);
      assertThat(unknown.at("/error/message").asText().replace("no-such-task", id))
          .as("unknown and foreign read the same")
          .isEqualTo(
              h.call("tasks/get", "{\"id\":\"" + id + "\"}", other).at("/error/message").asText());
      JsonNode list = h.call("tasks/list", "{}", other);
      assertThat(list.at("/result/tasks").findValuesAsText("id")).doesNotContain(id);
    }
    assertThat(h.call("tasks/get", "{\"id\":\"" + id + "\"}", alice).at("/result/id").asText())
        .isEqualTo(id);
  }

  @Test
  void tasksListPagesNewestFirst() throws Exception {
    String[] dave = {"Authorization", "Bearer " + h.token("dave")};
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      ids.add(h.call("message/send", nonBlocking("summarize"), dave).at("/result/id").asText());
      Thread.sleep(3); // distinct created_at milliseconds, so newest-first is defined
    }
    for (String id : ids) {
      h.awaitState(id, "submitted", dave);
    }
    List<String> seen = new ArrayList<>();
    String token = "";
    int pages = 0;
    do {
      JsonNode page =
          h.call("tasks/list", "{\"pageSize\":2,\"pageToken\":\"" + token + "\"}", dave)
              .get("result");
      assertThat(page.get("totalSize").asInt()).isEqualTo(5);
      page.get("tasks").forEach(t -> seen.add(t.get("id").asText()));
      token = page.get("nextPageToken").asText();
      pages++;
    } while (!token.isEmpty());
    assertThat(pages).isEqualTo(3);
    List<String> newestFirst = new ArrayList<>(ids);
    java.util.Collections.reverse(newestFirst);
    assertThat(seen).containsExactlyElementsOf(newestFirst);
    h.finish(ids.get(0), "{}");
    h.awaitState(ids.get(0), "completed", dave);
    JsonNode completed = h.call("tasks/list", "{\"status\":\"completed\"}", dave);
    assertThat(completed.at("/result/tasks").findValuesAsText("id")).containsExactly(ids.get(0));
    assertThat(h.call("tasks/list", "{\"pageSize\":0}", dave).at("/error/code").asInt())
        .isEqualTo(-32602);
    assertThat(h.call("tasks/list", "{\"pageSize\":\"2\"}", dave).at("/error/code").asInt())
        .isEqualTo(-32602);
    assertThat(h.call("tasks/list", "{\"pageToken\":\"garbage!\"}", dave).at("/error/code").asInt())
        .isEqualTo(-32602);
    assertThat(h.call("tasks/list", "{\"status\":\"sleeping\"}", dave).at("/error/code").asInt())
        .isEqualTo(-32602);
  }

  @Test
  void aConversationKeepsItsContextAcrossTasksAndTurns() throws Exception {
    String[] erin = {"Authorization", "Bearer " + h.token("erin")};
    String context = "conv-" + System.nanoTime();
    String inContext =
        nonBlocking("echo")
            .replace("\"role\":\"user\",", "\"role\":\"user\",\"contextId\":\"" + context + "\",");
    String first = h.call("message/send", inContext, erin).at("/result/id").asText();
    String second =
        h.call("message/send", inContext.replace("\"m-", "\"m2-"), erin).at("/result/id").asText();
    String elsewhere = h.call("message/send", nonBlocking("echo"), erin).at("/result/id").asText();
    for (String id : List.of(first, second)) {
      assertThat(h.awaitState(id, "submitted", erin).get("contextId").asText()).isEqualTo(context);
    }
    assertThat(h.awaitState(elsewhere, "submitted", erin).get("contextId").asText())
        .isEqualTo(elsewhere);
    JsonNode listed = h.call("tasks/list", "{\"contextId\":\"" + context + "\"}", erin);
    assertThat(listed.at("/result/tasks").findValuesAsText("id"))
        .containsExactlyInAnyOrder(first, second);

    // two questions, two answers: each follow-up to the input-required task resumes it
    for (int turn = 1; turn <= 2; turn++) {
      h.post(
          "/mesh/" + first + "/final",
          "{\"id\":\"" + first + "\",\"status\":\"paused\",\"current_actor_name\":\"x-pause\"}");
      h.awaitState(first, "input-required", erin);
      JsonNode resumed =
          h.call(
              "message/send",
              "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"t"
                  + turn
                  + "\",\"taskId\":\""
                  + first
                  + "\",\"contextId\":\""
                  + context
                  + "\",\"parts\":[{\"kind\":\"text\","
                  + "\"text\":\"answer "
                  + turn
                  + "\"}]},\"configuration\":{\"blocking\":false}}",
              erin);
      assertThat(resumed.at("/result/status/state").asText())
          .as(resumed.toString())
          .isEqualTo("working");
      assertThat(resumed.at("/result/contextId").asText()).isEqualTo(context);
      h.awaitState(first, "working", erin);
    }
    h.finish(first, "{\"ok\":true}");
    assertThat(h.awaitState(first, "completed", erin).get("contextId").asText()).isEqualTo(context);
  }

  @Test
  void cancelAndResubscribe() throws Exception {
    String id = h.call("message/send", nonBlocking("echo"), alice).at("/result/id").asText();
    h.awaitState(id, "submitted", alice);
    h.progress(id, "echo", "received");
    h.awaitState(id, "working", alice);
    try (A2aHarness.Stream s =
        h.stream(
            "{\"jsonrpc\":\"2.0\",\"id\":\"r\",\"method\":\"tasks/resubscribe\","
                + "\"params\":{\"id\":\""
                + id
                + "\"}}",
            alice)) {
      JsonNode first = s.next().get("result");
      assertThat(first.get("kind").asText()).isEqualTo("task");
      assertThat(first.at("/status/state").asText()).isEqualTo("working");
      h.post("/mesh/" + id + "/fly", "{\"type\":\"progress\",\"percent\":10}");
      JsonNode fly = s.next().get("result");
      assertThat(fly.at("/artifact/parts/0/kind").asText()).isEqualTo("data");
      assertThat(fly.get("append").asBoolean()).isFalse();
      JsonNode canceled = h.call("tasks/cancel", "{\"id\":\"" + id + "\"}", alice);
      assertThat(canceled.at("/result/status/state").asText()).isEqualTo("canceled");
      List<JsonNode> rest = s.rest();
      assertThat(rest)
          .extracting(n -> n.at("/result/kind").asText())
          .containsExactly("artifact-update", "status-update");
      assertThat(rest.get(0).at("/result/lastChunk").asBoolean()).isTrue();
      assertThat(rest.get(1).at("/result/status/state").asText()).isEqualTo("canceled");
      assertThat(rest.get(1).at("/result/final").asBoolean()).isTrue();
    }
    JsonNode again = h.call("tasks/cancel", "{\"id\":\"" + id + "\"}", alice);
    assertThat(again.at("/error/code").asInt()).isEqualTo(-32002);
    try (A2aHarness.Stream s =
        h.stream(
            "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/resubscribe\","
                + "\"params\":{\"id\":\""
                + id
                + "\"}}",
            alice)) {
      List<JsonNode> events = s.rest();
      // no token was sent on this stream and a canceled task has no result: no artifact to close
      assertThat(events)
          .extracting(n -> n.at("/result/kind").asText())
          .containsExactly("task", "status-update");
    }
  }

  @Test
  void pushNotificationsArePostedWithTheTokenAndRetried() throws Exception {
    LinkedBlockingQueue<String[]> received = new LinkedBlockingQueue<>();
    int[] calls = {0};
    HttpServer hook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    hook.createContext(
        "/hook",
        ex -> {
          byte[] body = ex.getRequestBody().readAllBytes();
          boolean fail;
          synchronized (calls) {
            fail = calls[0]++ == 0; // the first delivery fails: it must be retried
          }
          if (!fail) {
            received.add(
                new String[] {
                  ex.getRequestHeaders().getFirst("X-A2A-Notification-Token"),
                  new String(body, StandardCharsets.UTF_8)
                });
          }
          ex.sendResponseHeaders(fail ? 503 : 200, -1);
          ex.close();
        });
    hook.start();
    try {
      String url = "http://127.0.0.1:" + hook.getAddress().getPort() + "/hook";
      String id = h.call("message/send", nonBlocking("echo"), alice).at("/result/id").asText();
      h.awaitState(id, "submitted", alice);
      JsonNode set =
          h.call(
              "pushNotification/set",
              "{\"taskId\":\""
                  + id
                  + "\",\"pushNotificationConfig\":"
                  + "{\"id\":\"c1\",\"url\":\""
                  + url
                  + "\",\"token\":\"tok-1\"}}",
              alice);
      assertThat(set.at("/result/pushNotificationConfig/id").asText()).isEqualTo("c1");
      assertThat(
              h.call(
                      "pushNotification/get",
                      "{\"id\":\"" + id + "\",\"pushNotificationConfigId\":\"c1\"}",
                      alice)
                  .at("/result/pushNotificationConfig/url")
                  .asText())
          .isEqualTo(url);
      assertThat(
              h.call("tasks/pushNotificationConfig/list", "{\"id\":\"" + id + "\"}", alice)
                  .at("/result")
                  .size())
          .isEqualTo(1);
      h.progress(id, "echo", "received");
      h.finish(id, "{\"ok\":true}");
      String[] first = received.poll(20, TimeUnit.SECONDS);
      String[] second = received.poll(20, TimeUnit.SECONDS);
      assertThat(first).isNotNull();
      assertThat(second).isNotNull();
      assertThat(first[0]).isEqualTo("tok-1");
      assertThat(Json.MAPPER.readTree(first[1]).at("/status/state").asText()).isEqualTo("working");
      JsonNode finalPush = Json.MAPPER.readTree(second[1]);
      assertThat(finalPush.get("id").asText()).isEqualTo(id);
      assertThat(finalPush.at("/status/state").asText()).isEqualTo("completed");
      assertThat(calls[0]).as("the failed first POST was retried").isEqualTo(3);
      assertThat(
              h.call(
                      "pushNotification/delete",
                      "{\"id\":\"" + id + "\",\"pushNotificationConfigId\":\"c1\"}",
                      alice)
                  .get("result")
                  .isNull())
          .isTrue();
      assertThat(
              h.call("pushNotification/get", "{\"id\":\"" + id + "\"}", alice)
                  .at("/error/code")
                  .asInt())
          .isEqualTo(-32602);
      assertThat(
              h.call(
                      "pushNotification/set",
                      "{\"taskId\":\""
                          + id
                          + "\",\"pushNotificationConfig\":"
                          + "{\"url\":\"ftp://example.com/x\"}}",
                      alice)
                  .at("/error/code")
                  .asInt())
          .isEqualTo(-32602);
      assertThat(
              h.call(
                      "pushNotification/set",
                      "{\"taskId\":\"" + id + "\",\"pushNotificationConfig\":{}}",
                      alice)
                  .at("/error/code")
                  .asInt())
          .isEqualTo(-32602);
    } finally {
      hook.stop(0);
    }
  }

  @Test
  void badRequestsGetTheirJsonRpcErrors() throws Exception {
    assertThat(code(h.rpc("{not json", KEY))).isEqualTo(-32700);
    assertThat(Json.MAPPER.readTree(h.rpc("{not json", KEY).body()).get("id").isNull()).isTrue();
    assertThat(code(h.rpc("[]", KEY))).isEqualTo(-32600);
    assertThat(code(h.rpc("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"tasks/get\"}", KEY)))
        .isEqualTo(-32600);
    assertThat(code(h.rpc("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"tasks/get\"}", KEY)))
        .isEqualTo(-32600);
    assertThat(code(h.rpc("{\"jsonrpc\":\"2.0\",\"id\":1}", KEY))).isEqualTo(-32600);
    assertThat(
            code(
                h.rpc(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/fly\",\"params\":{}}", KEY)))
        .isEqualTo(-32601);
    assertThat(
            code(
                h.rpc(
                    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tasks/get\",\"params\":[1]}", KEY)))
        .isEqualTo(-32602);
    assertThat(h.call("tasks/get", "{}", KEY).at("/error/code").asInt()).isEqualTo(-32602);
    assertThat(h.call("tasks/get", "{\"id\":5}", KEY).at("/error/code").asInt()).isEqualTo(-32602);
    assertThat(
            h.call("tasks/get", "{\"id\":\"x\",\"historyLength\":-1}", KEY)
                .at("/error/code")
                .asInt())
        .isEqualTo(-32602);
    assertThat(
            h.call("tasks/get", "{\"id\":\"x\",\"historyLength\":\"2\"}", KEY)
                .at("/error/code")
                .asInt())
        .isEqualTo(-32602);
    for (String message :
        List.of(
            "{\"kind\":\"message\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":\"a\"}]}",
            "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":[]}",
            "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"video\"}]}",
            "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":5}]}",
            "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"data\",\"data\":[1]}]}",
            "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":\"text\"}",
            "{\"kind\":\"message\",\"role\":7,\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":\"a\"}]}")) {
      JsonNode r =
          h.call(
              "message/send",
              "{\"message\":" + message + ",\"metadata\":{\"skill\":\"echo\"}}",
              KEY);
      assertThat(r.at("/error/code").asInt()).as(message).isEqualTo(-32602);
    }
    JsonNode file =
        h.call(
            "message/send",
            "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\","
                + "\"parts\":[{\"kind\":\"file\",\"file\":{\"uri\":\"http://x/y\"}}]},\"metadata\":{\"skill\":\"echo\"}}",
            KEY);
    assertThat(file.at("/error/code").asInt()).isEqualTo(-32005);
    JsonNode noSkill =
        h.call(
            "message/send",
            "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\","
                + "\"parts\":[{\"kind\":\"text\",\"text\":\"a\"}]}}",
            KEY);
    assertThat(noSkill.at("/error/code").asInt()).as("two skills, none named").isEqualTo(-32602);
    JsonNode toolOnly =
        h.call(
            "message/send",
            "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\","
                + "\"parts\":[{\"kind\":\"text\",\"text\":\"a\"}]},\"metadata\":{\"skill\":\"tool-only\"}}",
            KEY);
    assertThat(toolOnly.at("/error/code").asInt())
        .as("a flow without a2a is no skill")
        .isEqualTo(-32602);
    JsonNode ext = h.call("agent/getAuthenticatedExtendedCard", "{}", KEY);
    assertThat(ext.at("/result/skills").size()).isEqualTo(2);
    assertThat(h.call("agent/authenticatedExtendedCard", "{}", KEY).at("/result/name").asText())
        .isEqualTo("taskmesh");
    try (A2aHarness.Stream s =
        h.stream(
            "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"message/stream\",\"params\":{}}", KEY)) {
      List<JsonNode> events = s.rest();
      assertThat(events).hasSize(1);
      assertThat(events.get(0).at("/error/code").asInt()).isEqualTo(-32602);
      assertThat(events.get(0).get("id").asInt()).isEqualTo(8);
    }
  }

  private static int code(HttpResponse<String> r) throws Exception {
    assertThat(r.statusCode()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body()).at("/error/code").asInt();
  }

  private static String nonBlocking(String skill) {
    return "{\"message\":{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m-"
        + System.nanoTime()
        + "\","
        + "\"parts\":[{\"kind\":\"data\",\"data\":{\"n\":1}}]},\"metadata\":{\"skill\":\""
        + skill
        + "\"},"
        + "\"configuration\":{\"blocking\":false}}";
  }

  private static String b64(String s) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(s.getBytes(StandardCharsets.UTF_8));
  }
}

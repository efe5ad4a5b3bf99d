package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.card.AgentCard;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aSettings;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.a2a.model.StreamResult;
import io.taskmesh.gateway.a2a.push.PushNotifier;
import io.taskmesh.gateway.follow.PageToken;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Pure A2A rules: envelope parsing, params, payload rule, status mapping, stream events, card,
 * settings.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class A2aMappingTest {

  private static JsonNode json(String s) throws Exception {
    return Json.MAPPER.readTree(s);
  }

  private static int code(Runnable r) {
    try {
      r.run();
    } catch (A2aException e) {
      return e.code();
    }
    throw new AssertionError("no A2aException");
  }

  @Test
  void envelopeErrors() {
    byte[] notJson = "{x".getBytes(StandardCharsets.UTF_8);
    assertThat(code(() -> JsonRpc.parse(notJson))).isEqualTo(-32700);
    assertThat(code(() -> JsonRpc.parse(new byte[0]))).isEqualTo(-32700);
    assertThat(code(() -> JsonRpc.parse("[1]".getBytes()))).isEqualTo(-32600);
    assertThat(
            code(
                () ->
                    JsonRpc.parse("{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"m\"}".getBytes())))
        .isEqualTo(-32600);
    assertThat(
            code(() -> JsonRpc.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\"}".getBytes())))
        .isEqualTo(-32600);
    assertThat(
            code(
                () ->
                    JsonRpc.parse(
                        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":3}".getBytes())))
        .isEqualTo(-32602);
    JsonRpc.Request ok =
        JsonRpc.parse("{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"tasks/get\"}".getBytes());
    assertThat(ok.id().isTextual()).isTrue();
    assertThat(ok.paramsObject().isEmpty()).isTrue();
    assertThat(JsonRpc.idOf("{\"id\":12}".getBytes()).asInt()).isEqualTo(12);
    assertThat(JsonRpc.idOf("{\"id\":{}}".getBytes()).isNull()).isTrue();
    assertThat(JsonRpc.error(ok.id(), -32601, "x").toString())
        .isEqualTo(
            "{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"error\":{\"code\":-32601,\"message\":\"x\"}}");
  }

  @Test
  void payloadRule() throws Exception {
    assertThat(A2aMessages.payload(json("[{\"kind\":\"data\",\"data\":{\"a\":1}}]")).toString())
        .isEqualTo("{\"a\":1}");
    assertThat(
            A2aMessages.payload(
                    json(
                        "[{\"kind\":\"data\",\"data\":{\"a\":1,\"b\":1}},{\"kind\":\"data\",\"data\":{\"b\":2}}]"))
                .toString())
        .isEqualTo("{\"a\":1,\"b\":2}");
    assertThat(
            A2aMessages.payload(
                    json("[{\"kind\":\"text\",\"text\":\"a\"},{\"kind\":\"text\",\"text\":\"b\"}]"))
                .toString())
        .isEqualTo("{\"text\":\"a\\nb\"}");
    assertThat(
            A2aMessages.payload(
                    json(
                        "[{\"kind\":\"data\",\"data\":{\"text\":\"old\",\"n\":1}},{\"kind\":\"text\",\"text\":\"new\"}]"))
                .toString())
        .isEqualTo("{\"text\":\"new\",\"n\":1}");
    for (String bad :
        List.of(
            "[]",
            "{}",
            "[1]",
            "[{}]",
            "[{\"kind\":\"text\"}]",
            "[{\"kind\":\"data\",\"data\":\"s\"}]",
            "[{\"kind\":\"image\"}]")) {
      assertThat(
              code(
                  () -> {
                    try {
                      A2aMessages.payload(json(bad));
                    } catch (A2aException e) {
                      throw e;
                    } catch (Exception e) {
                      throw new RuntimeException(e);
                    }
                  }))
          .as(bad)
          .isEqualTo(-32602);
    }
    assertThat(
            code(
                () -> {
                  try {
                    A2aMessages.payload(json("[{\"kind\":\"file\",\"file\":{\"uri\":\"x\"}}]"));
                  } catch (A2aException e) {
                    throw e;
                  } catch (Exception e) {
                    throw new RuntimeException(e);
                  }
                }))
        .isEqualTo(-32005);
  }

  @Test
  void sendParams() throws Exception {
    String msg =
        "{\"kind\":\"message\",\"role\":\"user\",\"messageId\":\"m\",\"parts\":[{\"kind\":\"text\",\"text\":\"a\"}]}";
    A2aMessages.Send ok =
        A2aMessages.parseSend(
            (ObjectNode)
                json(
                    "{\"message\":"
                        + msg
                        + ",\"metadata\":{\"skill\":\"s\"},\"configuration\":{\"blocking\":false,\"historyLength\":2}}"));
    assertThat(ok.skill()).isEqualTo("s");
    assertThat(ok.blocking()).isFalse();
    assertThat(ok.historyLength()).isEqualTo(2);
    for (String bad :
        List.of(
            "{}",
            "{\"message\":[]}",
            "{\"message\":" + msg.replace("\"role\":\"user\",", "") + "}",
            "{\"message\":" + msg.replace("\"user\"", "\"agent\"") + "}",
            "{\"message\":" + msg.replace("\"messageId\":\"m\",", "") + "}",
            "{\"message\":" + msg.replace("\"message\",", "\"task\",") + "}",
            "{\"message\":" + msg + ",\"configuration\":{\"historyLength\":-1}}",
            "{\"message\":" + msg + ",\"configuration\":{\"blocking\":\"no\"}}",
            "{\"message\":" + msg + ",\"metadata\":{\"skill\":3}}")) {
      assertThat(
              code(
                  () -> {
                    try {
                      A2aMessages.parseSend((ObjectNode) json(bad));
                    } catch (A2aException e) {
                      throw e;
                    } catch (Exception e) {
                      throw new RuntimeException(e);
                    }
                  }))
          .as(bad)
          .isEqualTo(-32602);
    }
    FlowConfig a = new FlowConfig("a", "a", null, null, null, null, Json.MAPPER.createObjectNode());
    FlowConfig b = new FlowConfig("b", "b", null, null, null, null, Json.MAPPER.createObjectNode());
    assertThat(A2aMessages.chooseSkill(null, Map.of("a", a))).isSameAs(a);
    assertThat(A2aMessages.chooseSkill("b", Map.of("a", a, "b", b))).isSameAs(b);
    assertThat(code(() -> A2aMessages.chooseSkill(null, Map.of("a", a, "b", b)))).isEqualTo(-32602);
    assertThat(code(() -> A2aMessages.chooseSkill("c", Map.of("a", a)))).isEqualTo(-32602);
    assertThat(code(() -> A2aMessages.chooseSkill(null, Map.of()))).isEqualTo(-32004);
  }

  @Test
  void statusMapping() {
    assertThat(A2aTasks.state(TaskStatus.PENDING)).isEqualTo("submitted");
    assertThat(A2aTasks.state(TaskStatus.RUNNING)).isEqualTo("working");
    assertThat(A2aTasks.state(TaskStatus.SUCCEEDED)).isEqualTo("completed");
    assertThat(A2aTasks.state(TaskStatus.FAILED)).isEqualTo("failed");
    assertThat(A2aTasks.state(TaskStatus.CANCELED)).isEqualTo("canceled");
    assertThat(A2aTasks.state(TaskStatus.PAUSED)).isEqualTo("input-required");
    assertThat(A2aTasks.state(TaskStatus.AUTH_REQUIRED)).isEqualTo("auth-required");
    assertThat(A2aTasks.state(TaskStatus.fromWire("whatever"))).isEqualTo("unknown");
    assertThat(A2aTasks.state(null)).isEqualTo("unknown");
    assertThat(A2aState.gatewayStatus("input-required")).isEqualTo(TaskStatus.PAUSED);
    assertThat(A2aState.gatewayStatus("auth_required")).isEqualTo(TaskStatus.AUTH_REQUIRED);
    assertThat(A2aState.gatewayStatus("nope")).isNull();
  }

  private static List<JsonNode> trees(List<StreamResult> events) {
    return events.stream().map(Json::tree).toList();
  }

  private static TaskUpdate update(long seq, TaskStatus status, JsonNode result) {
    return TaskUpdate.of("t", seq, status, status.wire(), "2026-01-01T00:00:00Z")
        .withProgress(0.0)
        .withResult(result);
  }

  @Test
  void aFailedStatusSaysTheErrorTheFailingActorAndTheTraceback() {
    TaskUpdate failed =
        update(3, TaskStatus.FAILED, null)
            .withError("KeyError: 'text'")
            .withErrorDetails(
                new ErrorDetails("upper", "KeyError", "ProcessingError", "Traceback...\n"));
    JsonNode status = Json.tree(A2aTasks.status("t", "c", failed));
    assertThat(status.get("state").asText()).isEqualTo("failed");
    assertThat(status.at("/message/parts/0/text").asText())
        .isEqualTo("KeyError: 'text' (in actor upper)\n\nTraceback...\n");
  }

  @Test
  void aStreamCatchingUpFromAStoredFailedStateSaysTheTracebackToo() throws Exception {
    TaskUpdate failed =
        update(3, TaskStatus.FAILED, null)
            .withError("KeyError: 'text'")
            .withErrorDetails(
                new ErrorDetails("upper", "KeyError", "ProcessingError", "Traceback...\n"));
    TaskState stored =
        TaskState.announced("t", "c", null, TaskStatus.RUNNING, "running", "2026-01-01T00:00:00Z")
            .withUpdate(failed);
    List<JsonNode> end = trees(new StreamMapper("t", "c", 0, A2aState.WORKING).onState(stored));
    assertThat(end.get(end.size() - 1).at("/status/message/parts/0/text").asText())
        .isEqualTo("KeyError: 'text' (in actor upper)\n\nTraceback...\n");
  }

  @Test
  void anInputRequiredStatusAsksTheHandlersQuestion() {
    TaskUpdate paused =
        TaskUpdate.of("t", 4, TaskStatus.PAUSED, "What is your name?", "2026-01-01T00:00:00Z")
            .withQuestion("What is your name?");
    JsonNode status = Json.tree(A2aTasks.status("t", "c", paused));
    assertThat(status.get("state").asText()).isEqualTo("input-required");
    assertThat(status.at("/message/parts/0/text").asText()).isEqualTo("What is your name?");
  }

  @Test
  void aCompletedStatusSaysTheResultsText() throws Exception {
    JsonNode status =
        Json.tree(
            A2aTasks.status("t", "c", update(5, TaskStatus.SUCCEEDED, json("{\"text\":\"CBA\"}"))));
    assertThat(status.at("/message/parts/0/text").asText()).isEqualTo("CBA");
  }

  @Test
  void streamEvents() throws Exception {
    StreamMapper m = new StreamMapper("t", "c", 0, A2aState.SUBMITTED);
    assertThat(m.onUpdate(update(1, TaskStatus.PENDING, null))).isEmpty();
    List<JsonNode> working = trees(m.onUpdate(update(2, TaskStatus.RUNNING, null)));
    assertThat(working)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.get("kind").asText()).isEqualTo("status-update");
              assertThat(e.get("final").asBoolean()).isFalse();
            });
    assertThat(m.onUpdate(update(3, TaskStatus.RUNNING, null)))
        .as("progress not forwarded")
        .isEmpty();
    assertThat(m.onUpdate(update(3, TaskStatus.SUCCEEDED, null))).as("duplicate seq").isEmpty();
    JsonNode c1 = Json.tree(m.onFly(json("{\"text\":\"a\"}")).get(0));
    JsonNode c2 = Json.tree(m.onFly(json("{\"k\":1}")).get(0));
    assertThat(c1.get("append").asBoolean()).isFalse();
    assertThat(c1.at("/artifact/artifactId").asText()).isEqualTo("fly-stream");
    assertThat(c1.at("/artifact/parts/0/kind").asText()).isEqualTo("text");
    assertThat(c2.get("append").asBoolean()).isTrue();
    assertThat(c2.at("/artifact/parts/0/data/k").asInt()).isEqualTo(1);
    List<JsonNode> end = trees(m.onUpdate(update(4, TaskStatus.SUCCEEDED, json("[1,2]"))));
    // the tokens' artifact closes, the result comes as an artifact of its own, then the status
    assertThat(end)
        .extracting(e -> e.get("kind").asText())
        .containsExactly("artifact-update", "artifact-update", "status-update");
    assertThat(end.get(0).at("/artifact/artifactId").asText()).isEqualTo("fly-stream");
    assertThat(end.get(0).get("lastChunk").asBoolean()).isTrue();
    assertThat(end.get(1).at("/artifact/artifactId").asText()).isEqualTo("result");
    assertThat(end.get(1).get("append").asBoolean()).isFalse();
    assertThat(end.get(1).get("lastChunk").asBoolean()).isTrue();
    assertThat(end.get(1).at("/artifact/parts/0/data/result").toString()).isEqualTo("[1,2]");
    assertThat(end.get(1).at("/artifact/parts/1/text").asText()).isEqualTo("[1,2]");
    assertThat(end.get(2).get("final").asBoolean()).isTrue();
    assertThat(end.get(2).at("/status/message/parts/0/text").asText()).isEqualTo("[1,2]");
    assertThat(m.done()).isTrue();
    assertThat(m.onFly(json("{\"text\":\"late\"}"))).isEmpty();
    StreamMapper paused = new StreamMapper("t", "c", 0, A2aState.SUBMITTED);
    assertThat(trees(paused.onUpdate(update(2, TaskStatus.PAUSED, null))))
        .singleElement()
        .satisfies(e -> assertThat(e.at("/status/state").asText()).isEqualTo("input-required"));
    StreamMapper failed = new StreamMapper("t", "c", 0, A2aState.SUBMITTED);
    List<JsonNode> f = trees(failed.onUpdate(update(2, TaskStatus.FAILED, null)));
    assertThat(f)
        .as("no FLY before and no result: only the final status")
        .singleElement()
        .satisfies(e -> assertThat(e.at("/status/state").asText()).isEqualTo("failed"));
  }

  @Test
  void cardHasOneSkillPerFlow() {
    FlowConfig flow =
        new FlowConfig("echo", "echo", null, "desc", null, null, Json.MAPPER.createObjectNode());
    ObjectNode card =
        AgentCard.build(A2aSettings.defaults(), "http://h/a2a/", List.of(flow), false);
    assertThat(card.get("url").asText()).isEqualTo("http://h/a2a/");
    assertThat(card.at("/skills/0/id").asText()).isEqualTo("echo");
    assertThat(card.at("/skills/0/description").asText())
        .startsWith("desc ")
        .contains("This is the default skill");
    assertThat(card.at("/skills/0/tags").size()).isPositive();
    assertThat(card.has("securitySchemes")).as("auth off: no scheme").isFalse();
  }

  @Test
  void cardDeclaresTheConfiguredSchemesOnly() {
    A2aSettings jwtOnly =
        A2aSettings.fromEnv(
            Map.of(
                "SVC_A2A_JWT_JWKS_URL",
                "http://k/jwks",
                "SVC_A2A_JWT_ISSUER",
                "i",
                "SVC_A2A_JWT_AUDIENCE",
                "a"));
    ObjectNode card = AgentCard.build(jwtOnly, "http://h/a2a/", List.of(), false);
    assertThat(card.get("securitySchemes").fieldNames()).toIterable().containsExactly("bearer");
    assertThat(card.get("security").toString()).isEqualTo("[{\"bearer\":[]}]");
    assertThat(card.at("/capabilities/extendedAgentCard").asBoolean()).isTrue();
    A2aSettings both =
        A2aSettings.fromEnv(
            Map.of(
                "SVC_A2A_API_KEY",
                "k",
                "SVC_A2A_JWT_JWKS_URL",
                "http://k/jwks",
                "SVC_A2A_JWT_ISSUER",
                "i",
                "SVC_A2A_JWT_AUDIENCE",
                "a"));
    assertThat(
            AgentCard.build(both, "http://h/a2a/", List.of(), false)
                .at("/securitySchemes/apiKey/in")
                .asText())
        .isEqualTo("header");
  }

  @Test
  void theDefaultSkillIsChosenWhenNoneIsNamed() {
    FlowConfig echo =
        new FlowConfig("echo", "echo", null, null, null, null, Json.MAPPER.createObjectNode());
    FlowConfig chat =
        new FlowConfig(
            "chat",
            "chat",
            null,
            null,
            null,
            null,
            Json.MAPPER.createObjectNode().put("default", true));
    Map<String, FlowConfig> skills = new LinkedHashMap<>();
    skills.put("echo", echo);
    skills.put("chat", chat);
    assertThat(A2aMessages.chooseSkill(null, skills)).isSameAs(chat);
    assertThat(A2aMessages.chooseSkill("echo", skills)).isSameAs(echo);
    assertThat(A2aMessages.chooseSkill(null, Map.of("echo", echo))).isSameAs(echo);
    assertThatThrownBy(() -> A2aMessages.chooseSkill(null, Map.of("echo", echo, "other", echo)))
        .hasMessageContaining("a2a: {default: true}");
    assertThatThrownBy(
            () ->
                new FlowConfig(
                    "x",
                    "x",
                    null,
                    null,
                    null,
                    null,
                    Json.MAPPER.createObjectNode().put("default", "yes")))
        .hasMessageContaining("'a2a.default'");
  }

  @Test
  void settingsNameTheBadVariable() {
    assertThatThrownBy(() -> A2aSettings.fromEnv(Map.of("SVC_A2A_JWT_JWKS_URL", "http://k/jwks")))
        .hasMessageContaining("SVC_A2A_JWT_ISSUER");
    assertThatThrownBy(
            () ->
                A2aSettings.fromEnv(
                    Map.of("SVC_A2A_JWT_JWKS_URL", "http://k/jwks", "SVC_A2A_JWT_ISSUER", "i")))
        .hasMessageContaining("SVC_A2A_JWT_AUDIENCE");
    assertThatThrownBy(
            () ->
                A2aSettings.fromEnv(
                    Map.of(
                        "SVC_A2A_JWT_JWKS_URL",
                        "file:/etc/x",
                        "SVC_A2A_JWT_ISSUER",
                        "i",
                        "SVC_A2A_JWT_AUDIENCE",
                        "a")))
        .hasMessageContaining("SVC_A2A_JWT_JWKS_URL");
    assertThatThrownBy(() -> A2aSettings.fromEnv(Map.of("SVC_A2A_JWT_ISSUER", "i")))
        .hasMessageContaining("SVC_A2A_JWT_JWKS_URL");
    assertThatThrownBy(() -> A2aSettings.fromEnv(Map.of("SVC_A2A_PUSH_ALLOW_PRIVATE", "yes")))
        .hasMessageContaining("SVC_A2A_PUSH_ALLOW_PRIVATE");
    assertThatThrownBy(() -> A2aSettings.fromEnv(Map.of("SVC_A2A_PUBLIC_URL", "/relative")))
        .hasMessageContaining("SVC_A2A_PUBLIC_URL");
    assertThat(A2aSettings.defaults().authEnabled()).isFalse();
    A2aAuth off = new A2aAuth(A2aSettings.defaults());
    assertThat(off.authenticate(null, null).ok()).isTrue();
    A2aAuth key = new A2aAuth(A2aSettings.fromEnv(Map.of("SVC_A2A_API_KEY", "k")));
    assertThat(key.authenticate("k", null)).isEqualTo(new A2aAuth.Result(true, "api-key"));
    assertThat(key.authenticate("K", null).ok()).isFalse();
    assertThat(key.authenticate(null, "Bearer k").ok()).isFalse();
  }

  @Test
  void pushTargetsArePublicHttpOnly() throws Exception {
    for (String bad :
        List.of(
            "ftp://example.com/x",
            "http://127.0.0.1/x",
            "http://10.1.2.3/x",
            "http://192.168.0.1/",
            "http://169.254.169.254/latest",
            "http://[::1]/x",
            "http://[fd00::1]/x",
            "http://0.0.0.0/",
            "http://100.64.0.1/",
            "http://[::127.0.0.1]/x",
            "http://[::ffff:10.0.0.1]/x",
            "http://user@8.8.8.8/")) {
      assertThat(code(() -> PushNotifier.checkTarget(URI.create(bad), false)))
          .as(bad)
          .isEqualTo(-32602);
    }
    PushNotifier.checkTarget(URI.create("https://8.8.8.8/hook"), false);
    PushNotifier.checkTarget(URI.create("http://127.0.0.1:9/hook"), true);
  }

  @Test
  void pageTokensRoundTripAndForgeriesAreRefused() {
    assertThat(TaskReadMethods.pageOffset(PageToken.encode(40))).isEqualTo(40);
    assertThat(TaskReadMethods.pageOffset("")).isZero();
    assertThat(code(() -> TaskReadMethods.pageOffset("%%%"))).isEqualTo(-32602);
    assertThat(
            code(
                () ->
                    TaskReadMethods.pageOffset(
                        java.util.Base64.getUrlEncoder().encodeToString("offset:-1".getBytes()))))
        .isEqualTo(-32602);
  }
}

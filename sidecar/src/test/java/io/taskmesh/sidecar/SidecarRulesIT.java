package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Times;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every sidecar rule of the second spec against the real broker and real runtime processes. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SidecarRulesIT {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ExitHook NO_EXIT =
      s -> {
        throw new AssertionError("unexpected exit " + s);
      };

  TestMesh mesh;
  @TempDir Path tmp;

  @BeforeEach
  void start() {
    mesh = new TestMesh();
  }

  @AfterEach
  void stop() {
    mesh.close();
  }

  private Envelope sunk(int expected) {
    List<Envelope> all = mesh.envelopes(mesh.topic("x-sink"), expected, WAIT);
    assertThat(all).hasSize(expected);
    return all.get(0);
  }

  private JsonNode finalOf(String id) {
    Await.until(() -> !mesh.gateway.calls(id, "final").isEmpty(), WAIT, "final report of " + id);
    return mesh.gateway.calls(id, "final").get(0).body();
  }

  private Map<String, Object> counter(String name) {
    return Map.of("counter_file", tmp.resolve(name).toString());
  }

  @Test
  void singleResponseRoutesToNextActorThenSucceeds() {
    mesh.sidecar("a", "testhandlers.echo");
    mesh.sidecar("b", "testhandlers.echo");
    mesh.sink();
    mesh.send(mesh.envelope("single", Map.of("x", 1), "a", "b"));
    JsonNode fin = finalOf("single");
    assertThat(fin.path("status").asText()).isEqualTo("succeeded");
    assertThat(fin.path("result").path("x").asInt()).isEqualTo(1);
    Envelope viaB = mesh.envelopes(mesh.topic("b"), 1, WAIT).get(0);
    assertThat(viaB.route()).isEqualTo(new Route(List.of("a"), "b", List.of()));
    assertThat(viaB.status().phase()).isEqualTo(EnvelopePhase.PROCESSING);
    assertThat(viaB.status().actor()).isEqualTo("a");
    // no traceparent was sent: the first sidecar injected one, the next kept it
    assertThat(viaB.header("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    assertThat(sunk(1).header("traceparent")).isEqualTo(viaB.header("traceparent"));
  }

  @Test
  void fanOutOfThreeFramesKeepsFirstIdAndGivesOthersUuidWithParent() {
    mesh.sidecar("fan", "testhandlers.fan3");
    mesh.send(mesh.envelope("fan-1", Map.of("k", "v"), "fan"));
    List<Envelope> out = mesh.envelopes(mesh.topic("x-sink"), 3, WAIT);
    assertThat(out).hasSize(3);
    assertThat(out.get(0).id()).isEqualTo("fan-1");
    assertThat(out.get(0).parentId()).isNull();
    for (int i = 1; i < 3; i++) {
      assertThat(out.get(i).id())
          .matches("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}");
      assertThat(out.get(i).parentId()).isEqualTo("fan-1");
    }
    assertThat(out).extracting(e -> e.payload().path("part").asInt()).containsExactly(0, 1, 2);
    assertThat(out)
        .allSatisfy(e -> assertThat(e.status().phase()).isEqualTo(EnvelopePhase.SUCCEEDED));
  }

  @Test
  void emptyResponseGoesToSinkFailedWithRouteNotAdvanced() {
    mesh.sidecar("none", "testhandlers.nothing");
    mesh.sink();
    mesh.send(mesh.envelope("empty-1", Map.of(), "none", "later"));
    Envelope e = sunk(1);
    assertThat(e.route()).isEqualTo(new Route(List.of(), "none", List.of("later")));
    assertThat(e.status().phase()).isEqualTo(EnvelopePhase.FAILED);
    assertThat(e.status().reason()).isEqualTo(Reasons.EMPTY_RESPONSE);
    JsonNode fin = finalOf("empty-1");
    assertThat(fin.path("status").asText()).isEqualTo("failed");
    assertThat(fin.path("error").asText()).isEqualTo("handler returned no output");
  }

  @Test
  void processingErrorWithoutPolicyGoesToSinkFailedAndSumpReportsIt() {
    mesh.sidecar("boom", "testhandlers.boom");
    mesh.sink();
    SumpActor sump = mesh.sump();
    mesh.send(mesh.envelope("err-1", Map.of(), "boom"));
    Envelope e = sunk(1);
    assertThat(e.status().reason()).isEqualTo(Reasons.PROCESSING_ERROR);
    assertThat(e.status().error()).isEqualTo("ValueError: boom");
    assertThat(e.status().attempt()).isEqualTo(1);
    assertThat(e.status().errorDetails().actor()).isEqualTo("boom");
    assertThat(e.status().errorDetails().type()).isEqualTo("ValueError");
    assertThat(e.status().errorDetails().traceback())
        .startsWith("Traceback (most recent call last):")
        .contains("testhandlers.py")
        .endsWith("ValueError: boom\n");
    JsonNode fin = finalOf("err-1");
    assertThat(fin.path("status").asText()).isEqualTo("failed");
    assertThat(fin.path("error_details").path("actor").asText()).isEqualTo("boom");
    assertThat(fin.path("error_details").path("traceback").asText()).contains("ValueError: boom");
    Await.until(() -> sump.failed() == 1, WAIT, "sump failure count");
    assertThat(sump.metricsLine())
        .isEqualTo(
            "x-sump metrics: succeeded=0 failed=1 failed_by_reason={"
                + Reasons.PROCESSING_ERROR
                + "=1}");
    Await.until(() -> mesh.gateway.calls("err-1", "final").size() == 2, WAIT, "sump final too");
    assertThat(
            mesh.gateway.calls("err-1", "final").get(1).body().path("current_actor_name").asText())
        .isEqualTo("x-sump");
  }

  @Test
  void raisesThenSucceedsOnRetry() {
    mesh.sidecar(
        "flaky",
        "testhandlers.flaky",
        c -> c.withResiliency(3, Duration.ofMillis(50), List.of("ConnectionError")),
        NO_EXIT);
    mesh.send(mesh.envelope("retry-1", counter("flaky"), "flaky"));
    Envelope e = sunk(1);
    assertThat(e.status().phase()).isEqualTo(EnvelopePhase.SUCCEEDED);
    assertThat(e.payload().path("calls").asInt()).isEqualTo(2);
    assertThat(e.status().attempt()).isEqualTo(2);
  }

  @Test
  void retryMatchesMroEntriesAndStopsAtMaxAttempts() {
    // ConnectionError's mro holds OSError; 2 attempts while the handler needs 3 calls: fails
    mesh.sidecar(
        "flaky",
        "testhandlers.flaky",
        c -> c.withResiliency(2, Duration.ofMillis(10), List.of("OSError")),
        NO_EXIT);
    Map<String, Object> p = new java.util.HashMap<>(counter("flaky2"));
    p.put("fail_times", 2);
    mesh.send(mesh.envelope("retry-2", p, "flaky"));
    Envelope e = sunk(1);
    assertThat(e.status().phase()).isEqualTo(EnvelopePhase.FAILED);
    assertThat(e.status().attempt()).isEqualTo(2);
    assertThat(e.status().error()).startsWith("ConnectionError: transient failure 2");
  }

  @Test
  void errorsNotListedInRetryOnAreNotRetried() throws Exception {
    mesh.sidecar(
        "flaky",
        "testhandlers.flaky",
        c -> c.withResiliency(5, Duration.ofMillis(10), List.of("KeyError")),
        NO_EXIT);
    mesh.send(mesh.envelope("retry-3", counter("flaky3"), "flaky"));
    Envelope e = sunk(1);
    assertThat(e.status().phase()).isEqualTo(EnvelopePhase.FAILED);
    assertThat(Files.readString(tmp.resolve("flaky3"))).isEqualTo("1");
  }

  private static String http(int status, String body) {
    return "HTTP/1.1 "
        + status
        + " X\r\nContent-Type: application/json\r\nContent-Length: "
        + body.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
        + "\r\nConnection: close\r\n\r\n"
        + body;
  }

  /**
   * Issue 33 item 11: a result over the record limit failed the transaction, so the handler ran
   * three times and the envelope went to the dead-letter topic. Now the task fails at once, once,
   * with the size and the limit.
   */
  @Test
  void aResultOverTheRecordLimitFailsTheEnvelopeOnceNamingSizeAndLimit() throws Exception {
    String big = "x".repeat(2 * 1024 * 1024);
    try (FakeRuntime fake =
        new FakeRuntime(http(200, "{\"frames\":[{\"payload\":\"" + big + "\"}]}"))) {
      SidecarConfig cfg =
          mesh.config("p", fake.socketDir()).withResiliency(3, Duration.ofMillis(10), List.of());
      mesh.sidecar(fake.socketDir().resolve(SidecarConfig.DEFAULT_SOCKET_NAME), cfg, NO_EXIT);
      mesh.send(mesh.envelope("big-1", Map.of(), "p"));
      Envelope e = sunk(1);
      assertThat(e.status().reason()).isEqualTo(Reasons.RESULT_TOO_LARGE);
      assertThat(e.status().error())
          .contains("over the record limit of " + EnvelopeProcessor.MAX_RECORD_BYTES + " bytes");
      assertThat(fake.calls()).isEqualTo(1);
    }
  }

  /** Issue 33 item 11: a 5 MB exception message is cut, so its failure fits one record. */
  @Test
  void aHugeHandlerErrorIsCutAndFailsTheEnvelopeOnce() throws Exception {
    String huge = "y".repeat(5_000_000);
    String body =
        "{\"error\":\"processing_error\",\"details\":{\"type\":\"ValueError\","
            + "\"mro\":[\"ValueError\",\"Exception\"],\"message\":\""
            + huge
            + "\"}}";
    try (FakeRuntime fake = new FakeRuntime(http(500, body))) {
      SidecarConfig cfg =
          mesh.config("p", fake.socketDir()).withResiliency(1, Duration.ofMillis(10), List.of());
      mesh.sidecar(fake.socketDir().resolve(SidecarConfig.DEFAULT_SOCKET_NAME), cfg, NO_EXIT);
      mesh.send(mesh.envelope("huge-err-1", Map.of(), "p"));
      Envelope e = sunk(1);
      assertThat(e.status().reason()).isEqualTo(Reasons.PROCESSING_ERROR);
      assertThat(e.status().error())
          .startsWith("ValueError: yyy")
          .contains("5000012 characters in all");
      assertThat(e.status().error().length()).isLessThan(EnvelopeProcessor.MAX_ERROR_CHARS + 100);
      assertThat(fake.calls()).isEqualTo(1);
    }
  }

  @Test
  void msgParsingErrorIsNeverRetried() throws Exception {
    String body = "{\"error\":\"msg_parsing_error\",\"details\":{\"message\":\"bad route\"}}";
    try (FakeRuntime fake =
        new FakeRuntime(
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + body.length()
                + "\r\nConnection: close\r\n\r\n"
                + body)) {
      SidecarConfig cfg =
          mesh.config("p", fake.socketDir()).withResiliency(5, Duration.ofMillis(10), List.of());
      mesh.sidecar(fake.socketDir().resolve(SidecarConfig.DEFAULT_SOCKET_NAME), cfg, NO_EXIT);
      mesh.send(mesh.envelope("parse-1", Map.of(), "p"));
      Envelope e = sunk(1);
      assertThat(e.status().reason()).isEqualTo(Reasons.MSG_PARSING_ERROR);
      assertThat(e.status().error()).contains("bad route");
      assertThat(fake.calls()).isEqualTo(1);
    }
  }

  @Test
  void msgParsingErrorFromTheRealRuntimeIsNeverRetried() {
    // the sidecar validates envelopes itself, so the real runtime's msg_parsing_error comes from
    // its body limit
    RuntimeProcess rt =
        mesh.runtime(
            TestMesh.handlersDir(), "testhandlers.flaky", Map.of("SVC_MAX_BODY_BYTES", "2000"));
    mesh.sidecar(
        rt,
        mesh.config("big", rt.socketDir()).withResiliency(5, Duration.ofMillis(10), List.of()),
        NO_EXIT);
    Map<String, Object> p = new java.util.HashMap<>(counter("big"));
    p.put("blob", "x".repeat(5000));
    mesh.send(mesh.envelope("big-1", p, "big"));
    Envelope e = sunk(1);
    assertThat(e.status().reason()).isEqualTo(Reasons.MSG_PARSING_ERROR);
    assertThat(e.status().attempt()).isEqualTo(1);
    assertThat(tmp.resolve("big")).doesNotExist(); // the handler never ran
  }

  @Test
  void aReturnedListIsOnePayloadNotAFanOut() {
    mesh.sidecar("l", "testhandlers.as_list");
    mesh.send(mesh.envelope("list-1", Map.of("v", 1), "l"));
    Envelope e = sunk(1);
    assertThat(e.id()).isEqualTo("list-1");
    assertThat(e.payload().isArray()).isTrue();
    assertThat(e.payload()).hasSize(2);
  }

  @Test
  void effectiveTimeoutIsTheActorTimeoutWhenTheDeadlineIsFurther() {
    AtomicInteger exit = new AtomicInteger(-1);
    mesh.sidecar(
        "slow", "testhandlers.slow", c -> c.withActorTimeout(Duration.ofMillis(700)), exit::set);
    mesh.send(
        withDeadline(
            mesh.envelope("far-1", Map.of("sleep", 20), "slow"), Instant.now().plusSeconds(120)));
    Envelope e = sunk(1);
    assertThat(e.status().reason()).isEqualTo(Reasons.TIMEOUT);
    assertThat(e.status().error()).contains("effective timeout of 700 ms");
    Await.until(() -> exit.get() == 1, WAIT, "exit hook");
  }

  @Test
  void nonHttpAnswerGoesToSinkFailed() throws Exception {
    try (FakeRuntime fake = new FakeRuntime("SSH-2.0-OpenSSH_9.6\r\n")) {
      mesh.sidecar(
          fake.socketDir().resolve(SidecarConfig.DEFAULT_SOCKET_NAME),
          mesh.config("g", fake.socketDir()),
          NO_EXIT);
      mesh.send(mesh.envelope("garbage-1", Map.of(), "g"));
      Envelope e = sunk(1);
      assertThat(e.status().reason()).isEqualTo(Reasons.PROTOCOL_ERROR);
      assertThat(e.status().error()).contains("not an HTTP response");
    }
  }

  @Test
  void invalidEnvelopesGoToSinkFailedWithoutRuntimeCall() {
    mesh.sidecar("v", "testhandlers.flaky");
    mesh.send(mesh.topic("v"), "bad-json", "{not json".getBytes(StandardCharsets.UTF_8));
    mesh.send(
        mesh.topic("v"),
        "no-route",
        "{\"id\":\"no-route\",\"payload\":{}}".getBytes(StandardCharsets.UTF_8));
    mesh.send(
        mesh.topic("v"),
        "no-payload",
        "{\"id\":\"no-payload\",\"route\":{\"prev\":[],\"curr\":\"v\",\"next\":[]}}"
            .getBytes(StandardCharsets.UTF_8));
    List<Envelope> out = mesh.envelopes(mesh.topic("x-sink"), 3, WAIT);
    assertThat(out).extracting(Envelope::id).containsExactly("bad-json", "no-route", "no-payload");
    assertThat(out)
        .allSatisfy(
            e -> {
              assertThat(e.status().phase()).isEqualTo(EnvelopePhase.FAILED);
              assertThat(e.status().reason()).isEqualTo(Reasons.INVALID_ENVELOPE);
              assertThat(e.status().attempt()).isZero();
            });
    assertThat(out.get(1).status().error()).contains("route");
    assertThat(out.get(2).status().error()).contains("payload");
  }

  @Test
  void routeCurrMustBeThisActorAndCrewActorsAreRefusedInRoutes() {
    mesh.sidecar("r", "testhandlers.to_sink");
    Envelope wrong = mesh.envelope("wrong-1", Map.of(), "someone-else");
    mesh.send(mesh.topic("r"), wrong.id(), Json.bytes(wrong));
    mesh.send(mesh.envelope("crew-1", Map.of(), "r", "x-sump"));
    mesh.send(
        mesh.envelope("crew-2", Map.of(), "r")); // the handler itself puts x-sink in route.next
    List<Envelope> out = mesh.envelopes(mesh.topic("x-sink"), 3, WAIT);
    assertThat(out)
        .extracting(e -> e.id() + ":" + e.status().reason())
        .containsExactly(
            "wrong-1:" + Reasons.WRONG_ACTOR,
            "crew-1:" + Reasons.INVALID_ROUTE,
            "crew-2:" + Reasons.INVALID_ROUTE);
    assertThat(out.get(1).status().attempt()).isZero(); // refused before the runtime call
  }

  @Test
  void slaPreCheckFailsWithTimeoutAndNeverCallsTheRuntime() {
    mesh.sidecar("sla", "testhandlers.flaky");
    mesh.send(
        withDeadline(mesh.envelope("sla-1", counter("sla"), "sla"), Instant.now().minusSeconds(1)));
    Envelope e = sunk(1);
    assertThat(e.status().reason()).isEqualTo(Reasons.TIMEOUT);
    assertThat(e.status().error()).contains("passed before the runtime call");
    assertThat(tmp.resolve("sla")).doesNotExist();
  }

  @Test
  void deadlineExpiringDuringTheCallSendsTimeoutToSinkThenExits1() {
    AtomicInteger exit = new AtomicInteger(-1);
    mesh.sidecar("slow", "testhandlers.slow", c -> c, exit::set);
    Instant deadline = Instant.now().plusMillis(2500);
    mesh.send(withDeadline(mesh.envelope("late-1", Map.of("sleep", 20), "slow"), deadline));
    Envelope e = sunk(1);
    assertThat(e.status().reason()).isEqualTo(Reasons.TIMEOUT);
    assertThat(e.status().error()).contains("effective timeout");
    assertThat(e.status().deadlineAt()).isEqualTo(Times.iso(deadline));
    Await.until(() -> exit.get() == 1, WAIT, "exit hook");
  }

  @Test
  void actorTimeoutAppliesWithoutDeadline() {
    AtomicInteger exit = new AtomicInteger(-1);
    mesh.sidecar(
        "slow", "testhandlers.slow", c -> c.withActorTimeout(Duration.ofMillis(800)), exit::set);
    mesh.send(mesh.envelope("slow-1", Map.of("sleep", 20), "slow"));
    Envelope e = sunk(1);
    assertThat(e.status().error()).contains("800 ms");
    Await.until(() -> exit.get() == 1, WAIT, "exit hook");
  }

  @Test
  void pauseHeaderHandsTheEnvelopeToXPauseAndStopsRouting() {
    mesh.sidecar("p", "testhandlers.pause");
    mesh.send(mesh.envelope("pause-1", Map.of("q", "?"), "p", "next-one"));
    List<Envelope> toPause = mesh.envelopes(mesh.topic("x-pause"), 1, WAIT);
    assertThat(toPause).hasSize(1);
    assertThat(toPause.get(0).status().phase()).isEqualTo(EnvelopePhase.PAUSED);
    assertThat(toPause.get(0).status().actor()).isEqualTo("p");
    assertThat(toPause.get(0).header("x-svc-pause")).isEqualTo("true");
    assertThat(toPause.get(0).route()).isEqualTo(new Route(List.of("p"), "next-one", List.of()));
    assertThat(mesh.read(mesh.topic("next-one"), 0, Duration.ofMillis(500))).isEmpty();
    assertThat(mesh.gateway.calls("pause-1", "final")).isEmpty(); // x-pause reports it (PauseIT)
  }

  @Test
  void traceHeadersAreKeptOtherHeadersPassThrough() {
    mesh.sidecar("t", "testhandlers.trace");
    Envelope in = mesh.envelope("trace-1", Map.of(), "t");
    in.headers().put("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    in.headers().put("tracestate", "vendor=1");
    mesh.send(in);
    Envelope e = sunk(1);
    assertThat(e.header("traceparent"))
        .isEqualTo("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(e.header("tracestate")).isEqualTo("vendor=1");
    assertThat(e.header("added")).isEqualTo("yes");
  }

  @Test
  void flyFramesAreForwardedInOrderBeforeTheResult() {
    mesh.sidecar("s", "testhandlers.tokens");
    mesh.sink();
    mesh.send(mesh.envelope("fly-1", Map.of("text", "one two three"), "s"));
    JsonNode fin = finalOf("fly-1");
    assertThat(fin.path("status").asText()).isEqualTo("succeeded");
    Await.until(() -> mesh.gateway.calls("fly-1", "fly").size() == 3, WAIT, "3 fly");
    assertThat(mesh.gateway.calls("fly-1", "fly"))
        .extracting(c -> c.body().path("text").asText())
        .containsExactly("one", "two", "three");
  }

  @Test
  void configuredGatewayUrlIsUsedWithoutHeader() {
    RuntimeProcess rt = mesh.runtime("testhandlers.echo");
    SidecarConfig base = mesh.config("h", rt.socketDir());
    SidecarConfig cfg =
        new SidecarConfig(
            base.bootstrapServers(),
            base.namespace(),
            "h",
            base.socketDir(),
            base.socketName(),
            mesh.gateway.url(),
            base.actorTimeout(),
            1,
            base.backoff(),
            List.of(),
            1,
            3,
            500,
            1,
            (short) 1,
            "h1",
            false,
            Duration.ofSeconds(15),
            Duration.ofSeconds(60));
    try (GatewayReporter own = new GatewayReporter(cfg.gatewayUrl());
        RuntimeClient client = new RuntimeClient(rt.socketPath());
        Sidecar s = new Sidecar(cfg, client, own, NO_EXIT, Duration.ofSeconds(30))) {
      s.start();
      Envelope e =
          new Envelope(
              "nohdr-1", null, Route.start("h", List.of()), null, Json.tree(Map.of()), Map.of());
      mesh.send(e);
      Await.until(() -> mesh.gateway.calls("nohdr-1", "progress").size() == 3, WAIT, "3 progress");
    }
  }

  @Test
  void runtimeCrashIsDetectedAndTheEnvelopeRetriedOnTheRestartedRuntime() {
    RuntimeProcess rt = mesh.runtime("testhandlers.crash_once");
    mesh.sidecar(rt, mesh.config("c", rt.socketDir()), NO_EXIT);
    mesh.send(mesh.envelope("crash-1", counter("crash"), "c"));
    Await.until(() -> !rt.isAlive(), WAIT, "runtime died");
    RuntimeProcess again =
        RuntimeProcess.startReady(
            TestMesh.repoRoot().resolve("runtime"),
            TestMesh.handlersDir(),
            "testhandlers.crash_once",
            rt.socketDir(),
            Map.of(),
            Duration.ofSeconds(30));
    try {
      Envelope e = sunk(1);
      assertThat(e.status().phase()).isEqualTo(EnvelopePhase.SUCCEEDED);
      assertThat(e.payload().path("survived").asBoolean()).isTrue();
    } finally {
      again.close();
    }
  }

  @Test
  void concurrencyHandlesABatchInParallelKeepingOffsetOrder() {
    mesh.sidecar("cc", "testhandlers.slow", c -> c.withConcurrency(4), NO_EXIT);
    for (int i = 0; i < 8; i++) {
      mesh.send(mesh.envelope("cc-" + i, Map.of("sleep", 0.3, "i", i), "cc"));
    }
    List<Envelope> out = mesh.envelopes(mesh.topic("x-sink"), 8, WAIT);
    assertThat(out).hasSize(8);
    assertThat(out)
        .extracting(Envelope::id)
        .containsExactlyInAnyOrder("cc-0", "cc-1", "cc-2", "cc-3", "cc-4", "cc-5", "cc-6", "cc-7");
  }

  private static Envelope withDeadline(Envelope e, Instant deadline) {
    String now = Times.now();
    return e.withStatus(
        new EnvelopeStatus(
            EnvelopePhase.PENDING, null, 0, 1, now, now, Times.iso(deadline), null, null));
  }
}

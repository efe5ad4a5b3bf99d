package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.servicekit.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Pure rules: retry policy, envelope validation, final report mapping. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class RulesTest {
  private static InvokeResult.RuntimeError error(String code, String type, String... mro) {
    return new InvokeResult.RuntimeError(
        500, code, Json.tree(Map.of("message", "m", "type", type, "mro", List.of(mro))));
  }

  @Test
  void retryPolicyMatchesTypeOrMroAndNeverRetriesParsingErrors() {
    RetryPolicy p = new RetryPolicy(3, Duration.ofMillis(100), List.of("OSError"));
    assertThat(
            p.retries(
                error(
                    "processing_error",
                    "ConnectionError",
                    "ConnectionError",
                    "OSError",
                    "Exception"),
                1))
        .isTrue();
    assertThat(p.retries(error("processing_error", "builtins.OSError"), 1)).isTrue();
    assertThat(p.retries(error("processing_error", "ValueError", "ValueError", "Exception"), 1))
        .isFalse();
    assertThat(p.retries(error("processing_error", "OSError"), 3)).isFalse();
    assertThat(
            new RetryPolicy(5, Duration.ZERO, List.of())
                .retries(error("msg_parsing_error", "X"), 1))
        .isFalse();
    assertThat(
            new RetryPolicy(5, Duration.ZERO, List.of()).retries(error("processing_error", "X"), 1))
        .isTrue();
    assertThat(p.backoff(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(p.backoff(3)).isEqualTo(Duration.ofMillis(400));
    assertThat(p.backoff(40)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void retryMatchingAcceptsQualifiedAndBareNamesOnEitherSide() {
    RetryPolicy listedQualified =
        new RetryPolicy(3, Duration.ZERO, List.of("builtins.ValueError", "mod.MyErr"));
    assertThat(listedQualified.retries(error("processing_error", "ValueError", "Exception"), 1))
        .isTrue();
    assertThat(listedQualified.retries(error("processing_error", "MyErr", "Exception"), 1))
        .isTrue();
    assertThat(listedQualified.retries(error("processing_error", "mod.MyErr", "Exception"), 1))
        .isTrue();
    assertThat(listedQualified.retries(error("processing_error", "other.MyErr", "Exception"), 1))
        .isFalse();
    RetryPolicy listedBare = new RetryPolicy(3, Duration.ZERO, List.of("MyErr"));
    assertThat(listedBare.retries(error("processing_error", "pkg.handlers.MyErr", "Exception"), 1))
        .isTrue();
    assertThat(
            listedBare.retries(
                error("processing_error", "pkg.handlers.Sub", "pkg.handlers.MyErr"), 1))
        .isTrue();
    assertThat(
            listedBare.retries(
                error("processing_error", "KeyError", "LookupError", "Exception"), 1))
        .isFalse();
    RetryPolicy everything = new RetryPolicy(3, Duration.ZERO, List.of("BaseException"));
    assertThat(
            everything.retries(
                error("processing_error", "KeyError", "LookupError", "Exception"), 1))
        .isTrue();
  }

  @Test
  void envelopeValidation() {
    assertThat(EnvelopeReader.read("{".getBytes(StandardCharsets.UTF_8)).problem())
        .startsWith("invalid JSON");
    assertThat(EnvelopeReader.read("[]".getBytes(StandardCharsets.UTF_8)).problem())
        .contains("not a JSON object");
    assertThat(
            EnvelopeReader.read("{\"route\":{},\"payload\":1}".getBytes(StandardCharsets.UTF_8))
                .problem())
        .contains("'id'");
    assertThat(
            EnvelopeReader.read(
                    "{\"id\":\"a\",\"route\":{\"next\":\"b\"},\"payload\":1}"
                        .getBytes(StandardCharsets.UTF_8))
                .problem())
        .contains("route must be");
    EnvelopeReader.Read ok =
        EnvelopeReader.read(
            ("{\"id\":\"a\",\"route\":{\"prev\":[],\"curr\":\"x\",\"next\":[]},"
                    + "\"payload\":null,\"extra\":1}")
                .getBytes(StandardCharsets.UTF_8));
    assertThat(ok.valid()).isTrue();
    assertThat(ok.envelope().route().curr()).isEqualTo("x");
  }

  @Test
  void crewActorsAreFoundAnywhereInARoute() {
    assertThat(EnvelopeProcessor.crewActorIn(new Route(List.of(), "a", List.of("b")))).isNull();
    assertThat(EnvelopeProcessor.crewActorIn(new Route(List.of(), "a", List.of("x-sink"))))
        .isEqualTo("x-sink");
    assertThat(EnvelopeProcessor.crewActorIn(new Route(List.of(), "x-sump", List.of())))
        .isEqualTo("x-sump");
  }

  @Test
  void finalReportIsSucceededOnlyForSucceededPhaseOrAnEndedRoute() {
    Route ended = new Route(List.of("a"), "", List.of());
    Envelope ok =
        new Envelope(
            "1",
            null,
            ended,
            status(EnvelopePhase.SUCCEEDED, null, null),
            Json.tree(Map.of("r", 1)),
            null);
    FinalReport r = SinkActor.finalReport(ok, "x-sink");
    assertThat(r.status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(r.result().path("r").asInt()).isEqualTo(1);
    assertThat(SinkActor.finalReport(ok.withStatus(null), "x-sink").status())
        .isEqualTo(TaskStatus.SUCCEEDED);

    Envelope bad =
        new Envelope(
            "2",
            null,
            new Route(List.of(), "a", List.of()),
            status(EnvelopePhase.FAILED, "Timeout", "too slow"),
            Json.tree(1),
            null);
    FinalReport f = SinkActor.finalReport(bad, "x-sump");
    assertThat(f.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(f.error()).isEqualTo("too slow");
    assertThat(f.result()).isNull();
    assertThat(f.metadata()).containsEntry("reason", "Timeout");
    assertThat(SinkActor.finalReport(bad.withStatus(null), "x-sink").status())
        .isEqualTo(TaskStatus.FAILED);
  }

  @Test
  void resumeMergesInputIntoThePayloadAndDropsThePauseHeader() {
    Envelope parked =
        new Envelope(
            "1",
            null,
            new Route(List.of("a"), "b", List.of()),
            null,
            Json.tree(Map.of("q", "?", "input", "old")),
            Map.of("x-svc-pause", "true", "keep", "1"));
    Envelope r = PauseActor.resumedEnvelope(parked, Json.tree(Map.of("answer", 42)), null);
    assertThat(r.payload()).isEqualTo(Json.tree(Map.of("q", "?", "input", Map.of("answer", 42))));
    assertThat(r.headers()).containsOnlyKeys("keep");
    assertThat(r.route()).isEqualTo(parked.route());
    Envelope scalar = new Envelope("2", null, parked.route(), null, Json.tree("text"), Map.of());
    assertThat(PauseActor.resumedEnvelope(scalar, Json.tree(1), null).payload())
        .isEqualTo(Json.tree(Map.of("value", "text", "input", 1)));
    assertThat(EnvelopeProcessor.pauseRequested(parked)).isTrue();
    assertThat(EnvelopeProcessor.pauseRequested(scalar)).isFalse();
    Envelope no =
        new Envelope("3", null, parked.route(), null, Json.tree(1), Map.of("x-svc-pause", "false"));
    assertThat(EnvelopeProcessor.pauseRequested(no)).isFalse();
  }

  @Test
  void crewConfigReadsHooksAndRefusesNonHttpUrls() {
    CrewConfig c =
        CrewConfig.fromEnv(
            Map.of(
                "SVC_SINK_HOOKS",
                "http://a:1/h, https://b/x",
                "SVC_SINK_HOOK_ATTEMPTS",
                "5",
                "SVC_SINK_HOOK_BACKOFF",
                "1s",
                "SVC_PAUSE_RESUME_WAIT",
                "250ms"));
    assertThat(c.sinkHooks())
        .extracting(Object::toString)
        .containsExactly("http://a:1/h", "https://b/x");
    assertThat(c.hookAttempts()).isEqualTo(5);
    assertThat(c.hookBackoff()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.resumeWait()).isEqualTo(Duration.ofMillis(250));
    assertThat(CrewConfig.fromEnv(Map.of()).sinkHooks()).isEmpty();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> CrewConfig.fromEnv(Map.of("SVC_SINK_HOOKS", "ftp://x/")))
        .hasMessageContaining("SVC_SINK_HOOKS");
  }

  @Test
  void traceparentIsInjectedOnlyWhenMissing() {
    assertThat(TraceHeaders.random())
        .matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01")
        .isNotEqualTo(TraceHeaders.random());
    Envelope none =
        new Envelope("1", null, Route.start("a", List.of()), null, Json.tree(1), Map.of("k", "v"));
    Envelope injected = EnvelopeProcessor.withTraceparent(none);
    assertThat(injected.header("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
    assertThat(injected.header("k")).isEqualTo("v");
    assertThat(EnvelopeProcessor.withTraceparent(injected)).isSameAs(injected);
  }

  @Test
  void aRecordTraceparentIsAdoptedOnlyByAnEnvelopeWithoutOne() {
    String recordTrace = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    ConsumerRecord<String, byte[]> record = new ConsumerRecord<>("t", 0, 0, "1", new byte[0]);
    record.headers().add("traceparent", recordTrace.getBytes(StandardCharsets.UTF_8));
    Envelope none =
        new Envelope("1", null, Route.start("a", List.of()), null, Json.tree(1), Map.of("k", "v"));

    Envelope adopted = EnvelopeProcessor.adoptRecordTrace(none, record);
    assertThat(adopted.header("traceparent")).isEqualTo(recordTrace);
    assertThat(adopted.header("k")).isEqualTo("v");

    String own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    Envelope carrying =
        new Envelope(
            "1", null, Route.start("a", List.of()), null, Json.tree(1), Map.of("traceparent", own));
    assertThat(EnvelopeProcessor.adoptRecordTrace(carrying, record)).isSameAs(carrying);

    ConsumerRecord<String, byte[]> malformed = new ConsumerRecord<>("t", 0, 0, "1", new byte[0]);
    malformed.headers().add("traceparent", "not-a-trace".getBytes(StandardCharsets.UTF_8));
    assertThat(EnvelopeProcessor.adoptRecordTrace(none, malformed)).isSameAs(none);
  }

  private static EnvelopeStatus status(EnvelopePhase phase, String reason, String error) {
    return new EnvelopeStatus(phase, "a", 1, 1, null, null, null, reason, error);
  }
}

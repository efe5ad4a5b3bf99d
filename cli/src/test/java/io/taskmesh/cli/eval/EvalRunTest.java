package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EvalRunTest {
  private static EvalRun.Request request(
      String since, String fromOffset, Long limit, int k, String timeout, String gate) {
    return new EvalRun.Request(
        "127.0.0.1:9092",
        "default",
        "upper",
        Path.of("runtime"),
        Path.of("."),
        "m.f",
        e -> true,
        since,
        fromOffset,
        limit,
        k,
        timeout,
        null,
        "python3",
        gate,
        Path.of("evals"),
        false,
        null,
        Map.of());
  }

  @Test
  void offsetsAreOneForEveryPartitionOrPairsPerPartition() {
    assertThat(EvalRun.offsets("120")).isEqualTo(new ActorLog.FromOffsets(120L, Map.of()));
    assertThat(EvalRun.offsets("0:120, 3:88"))
        .isEqualTo(new ActorLog.FromOffsets(null, Map.of(0, 120L, 3, 88L)));
  }

  @Test
  void durationsTakeDaysBesideTheUsualUnits() {
    assertThat(EvalRun.duration("--since", "7d")).isEqualTo(Duration.ofDays(7));
    assertThat(EvalRun.duration("--since", "24h")).isEqualTo(Duration.ofHours(24));
    assertThat(EvalRun.duration("--timeout", "500ms")).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void badOptionsAreRefusedWithExitTwoAndOneLineInOurWords() {
    List<EvalRun.Request> bad =
        List.of(
            request("24h", "0", null, 8, "30s", null),
            request(null, "0:x", null, 8, "30s", null),
            request("yesterday", null, null, 8, "30s", null),
            request(null, null, 0L, 8, "30s", null),
            request(null, null, null, 0, "30s", null),
            request(null, null, null, 8, "0s", null),
            request(null, null, null, 8, "30s", "different >> 5"));
    for (EvalRun.Request r : bad) {
      assertThatThrownBy(() -> EvalRun.options(r))
          .isInstanceOfSatisfying(
              EvalFailure.class,
              f -> {
                assertThat(f.exitCode()).isEqualTo(2);
                assertThat(f.getMessage()).doesNotContain("Exception", "\n").contains("--");
              });
    }
  }

  @Test
  void theTableListsTheEnvelopesThatDifferAndTheCounts() {
    Summary s = new Summary();
    s.add(Summary.Verdict.EQUAL);
    s.add(Summary.Verdict.DIFFERENT);
    s.candidateLatency(3);
    s.candidateLatency(5);
    s.liveLatency(20);
    ReplayEval.Result r =
        new ReplayEval.Result(
            "upper-1",
            Path.of("evals/upper-1.json"),
            s,
            new Gate.Verdict(true, List.of("different is 50% (> 5%)")),
            List.of(new ReplayEval.Row("e-2", "different", "~/payload/text")),
            2,
            Duration.ofMillis(1500),
            Duration.ofMillis(900));

    String text = EvalRun.text(r, "upper");

    assertThat(text)
        .contains("replay-eval upper: 2 envelopes in 1.5 s; report evals/upper-1.json")
        .contains("/ui/#evals/upper-1")
        .containsPattern("e-2\\s+different\\s+~/payload/text")
        .containsPattern("equal\\s+1\\s+50.0%")
        .contains("latency p50 / p99: candidate 3 / 5 ms, live 20 / 20 ms")
        .contains("gate FAILED: different is 50% (> 5%)");
  }
}

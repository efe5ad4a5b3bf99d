package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryTest {
  @Test
  void percentilesAreTheNearestRank() {
    Summary s = new Summary();
    for (int i = 100; i >= 1; i--) {
      s.candidateLatency(i);
    }

    assertThat(s.candidatePercentile(0.5)).hasValue(50.0);
    assertThat(s.candidatePercentile(0.99)).hasValue(99.0);
    assertThat(s.candidatePercentile(1.0)).hasValue(100.0);
  }

  @Test
  void aSingleSampleIsEveryPercentile() {
    Summary s = new Summary();
    s.liveLatency(7);

    assertThat(s.livePercentile(0.5)).hasValue(7.0);
    assertThat(s.livePercentile(0.99)).hasValue(7.0);
  }

  @Test
  void withoutSamplesThereIsNoPercentile() {
    assertThat(new Summary().candidatePercentile(0.5)).isEmpty();
    assertThat(new Summary().metric("p99")).isEmpty();
  }

  @Test
  void countsAddUpToTheTotalAndRatesAreSharesOfIt() {
    Summary s = new Summary();
    for (int i = 0; i < 6; i++) {
      s.add(Summary.Verdict.EQUAL);
    }
    s.add(Summary.Verdict.DIFFERENT);
    s.add(Summary.Verdict.CANDIDATE_ERROR);
    s.add(Summary.Verdict.CANDIDATE_ERROR);
    s.add(Summary.Verdict.LIVE_ERROR);

    Map<String, Object> m = s.toMap();
    assertThat(m)
        .containsEntry("total", 10L)
        .containsEntry("equal", 6L)
        .containsEntry("different", 1L)
        .containsEntry("candidate_error", 2L)
        .containsEntry("live_error", 1L)
        .containsEntry("no_live_output", 0L)
        .containsEntry("candidate_error_rate", 0.2)
        .containsEntry("different_rate", 0.1);
    assertThat(s.metric("candidate_errors")).hasValue(2.0);
    assertThat(s.metric("total")).hasValue(10.0);
  }

  @Test
  void theScoreIsTheMeanOfTheScoredEnvelopes() {
    Summary s = new Summary();
    s.score(1.0);
    s.score(0.0);
    s.score(0.5);
    s.scoreFailed();

    assertThat(s.meanScore()).hasValue(0.5);
    assertThat(s.toMap().get("score")).isEqualTo(Map.of("mean", 0.5, "scored", 3L, "errors", 1L));
  }

  @Test
  void manyLatenciesFitInTheirGrowingArrays() {
    Summary s = new Summary();
    for (int i = 1; i <= 100_000; i++) {
      s.candidateLatency(i % 1000);
    }

    assertThat(s.candidatePercentile(0.99)).hasValue(989.0);
  }
}

package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class GateTest {
  /** 200 envelopes, 12 different (6%), no candidate error, p99 110 ms against live 100 ms. */
  private static final Function<String, OptionalDouble> RUN =
      name -> {
        Map<String, Double> m =
            Map.of(
                "total", 200.0,
                "different", 12.0,
                "candidate_errors", 0.0,
                "p99", 110.0,
                "live_p99", 100.0,
                "p50", 40.0,
                "live_p50", 20.0);
        Double v = m.get(name);
        return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
      };

  private static Gate.Verdict eval(String expr) throws Gate.BadExpression {
    return Gate.parse(expr, false).evaluate(RUN);
  }

  @Test
  void aPercentComparesTheCountWithAllEnvelopes() throws Exception {
    assertThat(eval("different > 5%").failed()).isTrue();
    assertThat(eval("different > 6%").failed()).isFalse();
    assertThat(eval("different >= 6%").failed()).isTrue();
  }

  @Test
  void anXComparesTheCandidatesLatencyWithTheLiveOne() throws Exception {
    assertThat(eval("p99 > 1.2x").failed()).isFalse();
    assertThat(eval("p99 > 1.05x").failed()).isTrue();
    assertThat(eval("p50 >= 2x").failed()).isTrue();
  }

  @Test
  void aPlainNumberIsTheMetricItself() throws Exception {
    assertThat(eval("candidate_errors > 0").failed()).isFalse();
    assertThat(eval("p99 > 100").failed()).isTrue();
    assertThat(eval("different == 12").failed()).isTrue();
    assertThat(eval("different != 12").failed()).isFalse();
  }

  @Test
  void theIssuesExampleFailsOnItsFirstComparisonAndNamesIt() throws Exception {
    Gate.Verdict v = eval("different > 5% or candidate_errors > 0 or p99 > 1.2x");

    assertThat(v.failed()).isTrue();
    assertThat(v.held()).containsExactly("different is 6% (> 5%)");
  }

  @Test
  void andBindsTighterThanOrAndParenthesesGroup() throws Exception {
    // true or (false and true) -> true; (true or false) and false -> false
    assertThat(eval("different > 5% or candidate_errors > 0 and p99 > 100").failed()).isTrue();
    assertThat(eval("(different > 5% or candidate_errors > 0) and p99 > 200").failed()).isFalse();
  }

  @Test
  void aMetricWithoutAValueNeverHolds() throws Exception {
    assertThat(eval("live_errors >= 0").failed()).isFalse();
  }

  @Test
  void wordsAreReadWhateverTheirCase() throws Exception {
    assertThat(eval("DIFFERENT > 5% OR p99 > 1.2X").failed()).isTrue();
  }

  @Test
  void badExpressionsAreRefusedWithOneLineSayingWhere() {
    assertThatThrownBy(() -> eval("different >"))
        .hasMessage("the gate ends where a number after different > was expected");
    assertThatThrownBy(() -> eval("diffs > 5%"))
        .hasMessageStartingWith("'diffs' at character 1 is no metric");
    assertThatThrownBy(() -> eval("different = 5")).hasMessageContaining("use == or !=");
    assertThatThrownBy(() -> eval("p99 > 5%"))
        .hasMessage("'%' applies to counts of envelopes, not to p99");
    assertThatThrownBy(() -> eval("different > 2x"))
        .hasMessageContaining("'x' compares p50 or p99");
    assertThatThrownBy(() -> eval("different > 5% or")).hasMessageContaining("ends where");
    assertThatThrownBy(() -> eval("different > 5% p99 > 1"))
        .hasMessage("unexpected 'p99' at character 16");
    assertThatThrownBy(() -> eval("(different > 5%")).hasMessageContaining("')'");
    assertThatThrownBy(() -> eval("different > 1.2.3")).hasMessageContaining("expected a number");
    assertThatThrownBy(() -> eval("different > 5 $"))
        .hasMessage("'$' at character 15 has no meaning here");
    assertThatThrownBy(() -> eval(" ")).hasMessageContaining("empty");
    assertThatThrownBy(() -> eval("score < 0.5")).hasMessageContaining("no --score");
  }

  @Test
  void scoreIsAMetricWhenAScoreFunctionIsGiven() throws Exception {
    Gate g = Gate.parse("score < 0.5", true);

    assertThat(
            g.evaluate(n -> n.equals("score") ? OptionalDouble.of(0.4) : OptionalDouble.empty())
                .failed())
        .isTrue();
  }
}

package io.taskmesh.cli.eval;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * The counts and latencies of a replay, added to one envelope at a time (thread-safe). Holds only
 * numbers: two longs per envelope for the latencies, nothing of the envelopes' bodies.
 */
public final class Summary {
  /** What one envelope ended as; every envelope is exactly one of these. */
  public enum Verdict {
    EQUAL("equal"),
    DIFFERENT("different"),
    CANDIDATE_ERROR("candidate_error"),
    LIVE_ERROR("live_error"),
    NO_LIVE_OUTPUT("no_live_output");

    private final String wire;

    Verdict(String wire) {
      this.wire = wire;
    }

    public String wire() {
      return wire;
    }
  }

  private final java.util.EnumMap<Verdict, Long> counts = new java.util.EnumMap<>(Verdict.class);
  private long total;
  private long[] candidateMs = new long[64];
  private int candidateN;
  private long[] liveMs = new long[64];
  private int liveN;
  private double scoreSum;
  private long scored;
  private long scoreErrors;

  public synchronized void add(Verdict v) {
    counts.merge(v, 1L, Long::sum);
    total++;
  }

  /** The candidate's time for one envelope (invoke sent to answer read). */
  public synchronized void candidateLatency(long millis) {
    if (candidateN == candidateMs.length) {
      candidateMs = Arrays.copyOf(candidateMs, candidateN * 2);
    }
    candidateMs[candidateN++] = millis;
  }

  /** The live actor's time for one envelope (input record to output record). */
  public synchronized void liveLatency(long millis) {
    if (liveN == liveMs.length) {
      liveMs = Arrays.copyOf(liveMs, liveN * 2);
    }
    liveMs[liveN++] = millis;
  }

  public synchronized void score(double value) {
    scoreSum += value;
    scored++;
  }

  public synchronized void scoreFailed() {
    scoreErrors++;
  }

  public synchronized long count(Verdict v) {
    return counts.getOrDefault(v, 0L);
  }

  public synchronized long total() {
    return total;
  }

  /**
   * The q-quantile (0 < q <= 1) of the candidate's latencies by nearest rank; empty without any.
   */
  public synchronized OptionalDouble candidatePercentile(double q) {
    return percentile(candidateMs, candidateN, q);
  }

  public synchronized OptionalDouble livePercentile(double q) {
    return percentile(liveMs, liveN, q);
  }

  /** Nearest rank: the smallest value with at least {@code q} of all values at or below it. */
  static OptionalDouble percentile(long[] values, int n, double q) {
    if (n == 0) {
      return OptionalDouble.empty();
    }
    long[] sorted = Arrays.copyOf(values, n);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(q * n);
    return OptionalDouble.of((double) sorted[Math.min(n, Math.max(1, rank)) - 1]);
  }

  /** The mean score; empty when nothing was scored. */
  public synchronized OptionalDouble meanScore() {
    return scored == 0 ? OptionalDouble.empty() : OptionalDouble.of(scoreSum / scored);
  }

  /**
   * A metric by the name the gate uses: the counts ({@code total}, {@code equal}, {@code
   * different}, {@code candidate_errors}, {@code live_errors}, {@code no_live_output}), the
   * candidate's latency {@code p50} / {@code p99} and the live ones {@code live_p50} / {@code
   * live_p99} (ms), {@code score} (mean); empty when the run has no value for it.
   */
  public synchronized OptionalDouble metric(String name) {
    return switch (name) {
      case "total" -> OptionalDouble.of((double) total());
      case "equal" -> OptionalDouble.of((double) count(Verdict.EQUAL));
      case "different" -> OptionalDouble.of((double) count(Verdict.DIFFERENT));
      case "candidate_errors" -> OptionalDouble.of((double) count(Verdict.CANDIDATE_ERROR));
      case "live_errors" -> OptionalDouble.of((double) count(Verdict.LIVE_ERROR));
      case "no_live_output" -> OptionalDouble.of((double) count(Verdict.NO_LIVE_OUTPUT));
      case "p50" -> candidatePercentile(0.5);
      case "p99" -> candidatePercentile(0.99);
      case "live_p50" -> livePercentile(0.5);
      case "live_p99" -> livePercentile(0.99);
      case "score" -> meanScore();
      default -> throw new IllegalArgumentException("no metric named " + name);
    };
  }

  /** The summary as the report and {@code --json} give it. */
  public synchronized Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    long total = total();
    m.put("total", total);
    for (Verdict v : Verdict.values()) {
      m.put(v.wire(), count(v));
    }
    m.put("candidate_error_rate", rate(count(Verdict.CANDIDATE_ERROR), total));
    m.put("live_error_rate", rate(count(Verdict.LIVE_ERROR), total));
    m.put("different_rate", rate(count(Verdict.DIFFERENT), total));
    Map<String, Object> cand = new LinkedHashMap<>();
    cand.put("p50_ms", orNull(candidatePercentile(0.5)));
    cand.put("p99_ms", orNull(candidatePercentile(0.99)));
    cand.put("samples", candidateN);
    m.put("candidate_latency", cand);
    Map<String, Object> live = new LinkedHashMap<>();
    live.put("p50_ms", orNull(livePercentile(0.5)));
    live.put("p99_ms", orNull(livePercentile(0.99)));
    live.put("samples", liveN);
    m.put("live_latency", live);
    if (scored > 0 || scoreErrors > 0) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("mean", orNull(meanScore()));
      s.put("scored", scored);
      s.put("errors", scoreErrors);
      m.put("score", s);
    }
    return m;
  }

  static double rate(long part, long total) {
    return total == 0 ? 0.0 : (double) part / total;
  }

  private static Object orNull(OptionalDouble d) {
    return d.isPresent() ? d.getAsDouble() : null;
  }
}

package io.taskmesh.cli.eval;

import io.taskmesh.cli.remote.Tables;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Durations;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Predicate;

/**
 * Checks replay-eval's options, runs it, and shows what it found: a progress line while it runs
 * (redrawn on a terminal, plain lines otherwise), then a table and the summary, or JSON with {@code
 * --json}. Exit codes: 0 done and the gate (if any) passed, 1 the gate failed, 2 options or input
 * refused, 3 the cluster or the candidate could not be reached.
 */
public final class EvalRun {
  public static final int GATE_FAILED = 1;

  /** The options as given on the command line, resolved to paths and names. */
  public record Request(
      String bootstrap,
      String namespace,
      String actor,
      Path runtimeDir,
      Path handlerDir,
      String handler,
      Predicate<Envelope> keep,
      String since,
      String fromOffset,
      Long limit,
      int concurrency,
      String timeout,
      String score,
      String python,
      String failIf,
      Path reportDir,
      boolean json,
      CandidateState state,
      Map<String, String> actorEnv) {}

  private EvalRun() {}

  // built for Java 17, where a null console is how the JDK says "not a terminal"
  @SuppressWarnings("SystemConsoleNull")
  public static int execute(Request r, PrintStream out, PrintStream err) {
    ReplayEval.Options options = options(r);
    boolean tty = System.console() != null && out == System.out && !r.json();
    Ticker ticker = new Ticker(err, tty);
    ReplayEval.Result result;
    try {
      result = ReplayEval.run(options, line -> err.println("replay-eval: " + line), ticker);
    } finally {
      ticker.end();
    }
    if (r.json()) {
      out.println(Json.write(jsonSummary(result)));
    } else {
      out.print(text(result, r.actor()));
    }
    return result.gate().failed() ? GATE_FAILED : 0;
  }

  static ReplayEval.Options options(Request r) {
    if (r.since() != null && r.fromOffset() != null) {
      throw new EvalFailure(2, "give --since or --from-offset, not both");
    }
    if (r.concurrency() < 1 || r.concurrency() > 256) {
      throw new EvalFailure(2, "--concurrency must be 1 to 256, got " + r.concurrency());
    }
    if (r.limit() != null && r.limit() < 1) {
      throw new EvalFailure(2, "--limit must be at least 1, got " + r.limit());
    }
    Duration timeout = duration("--timeout", r.timeout());
    if (timeout.isZero()) {
      throw new EvalFailure(2, "--timeout must be more than 0");
    }
    ActorLog.Start start = new ActorLog.Earliest();
    if (r.since() != null) {
      start =
          new ActorLog.Since(
              System.currentTimeMillis() - duration("--since", r.since()).toMillis());
    } else if (r.fromOffset() != null) {
      start = offsets(r.fromOffset());
    }
    Gate gate = null;
    if (r.failIf() != null) {
      try {
        gate = Gate.parse(r.failIf(), r.score() != null);
      } catch (Gate.BadExpression e) {
        throw new EvalFailure(2, "--fail-if: " + e.getMessage());
      }
    }
    return new ReplayEval.Options(
        r.bootstrap(),
        r.namespace(),
        r.actor(),
        r.runtimeDir(),
        r.handlerDir(),
        r.handler(),
        r.keep(),
        start,
        r.limit() == null ? Long.MAX_VALUE : r.limit(),
        r.concurrency(),
        timeout,
        r.score(),
        r.python(),
        gate,
        r.reportDir(),
        r.state(),
        r.actorEnv());
  }

  /** {@code 30s}, {@code 24h}, and days too: {@code 7d}. */
  static Duration duration(String option, String value) {
    try {
      String v = value.trim().toLowerCase(Locale.ROOT);
      if (v.matches("\\d+d")) {
        return Duration.ofDays(Long.parseLong(v.substring(0, v.length() - 1)));
      }
      return Durations.parse(option, v);
    } catch (ConfigException | NumberFormatException e) {
      throw new EvalFailure(
          2, option + " must be a duration like 500ms, 30s, 5m, 24h or 7d, got '" + value + "'");
    }
  }

  /** {@code 120} (every partition) or {@code 0:120,3:88}. */
  static ActorLog.FromOffsets offsets(String value) {
    String v = value.trim();
    try {
      if (v.matches("\\d+")) {
        return new ActorLog.FromOffsets(Long.parseLong(v), Map.of());
      }
      Map<Integer, Long> per = new HashMap<>();
      for (String part : v.split(",")) {
        String[] pe = part.trim().split(":");
        if (pe.length != 2) {
          throw new NumberFormatException(part);
        }
        per.put(Integer.parseInt(pe[0].trim()), Long.parseLong(pe[1].trim()));
      }
      return new ActorLog.FromOffsets(null, per);
    } catch (NumberFormatException e) {
      throw new EvalFailure(
          2,
          "--from-offset wants an offset (120) or partition:offset pairs (0:120,3:88), got '"
              + value
              + "'");
    }
  }

  static Map<String, Object> jsonSummary(ReplayEval.Result r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("report", r.report().toString());
    m.put("dashboard", "/ui/#evals/" + r.id());
    m.put("seconds", r.took().toMillis() / 1000.0);
    m.put("summary", r.summary().toMap());
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("failed", r.gate().failed());
    g.put("held", r.gate().held());
    m.put("gate", g);
    return m;
  }

  static String text(ReplayEval.Result r, String actor) {
    StringBuilder s = new StringBuilder();
    Summary sum = r.summary();
    s.append(
        String.format(
            Locale.ROOT,
            "replay-eval %s: %d envelopes in %.1f s; report %s (dashboard: /ui/#evals/%s)%n",
            actor,
            sum.total(),
            r.took().toMillis() / 1000.0,
            r.report(),
            r.id()));
    if (!r.rows().isEmpty()) {
      List<List<String>> rows = new ArrayList<>();
      rows.add(List.of("ENVELOPE", "VERDICT", "DETAIL"));
      r.rows().forEach(row -> rows.add(List.of(row.id(), row.verdict(), cut(row.detail(), 90))));
      s.append('\n').append(Tables.render(rows));
      long notEqual = sum.total() - sum.count(Summary.Verdict.EQUAL);
      if (notEqual > r.rows().size()) {
        s.append("(").append(notEqual - r.rows().size()).append(" more in the report)\n");
      }
    }
    List<List<String>> counts = new ArrayList<>();
    counts.add(List.of("", "COUNT", "SHARE"));
    for (Summary.Verdict v : Summary.Verdict.values()) {
      long c = sum.count(v);
      counts.add(
          List.of(
              v.wire(),
              Long.toString(c),
              String.format(Locale.ROOT, "%.1f%%", 100.0 * Summary.rate(c, sum.total()))));
    }
    s.append('\n').append(Tables.render(counts));
    s.append(
        String.format(
            Locale.ROOT,
            "latency p50 / p99: candidate %s / %s ms, live %s / %s ms%n",
            ms(sum.candidatePercentile(0.5)),
            ms(sum.candidatePercentile(0.99)),
            ms(sum.livePercentile(0.5)),
            ms(sum.livePercentile(0.99))));
    if (sum.meanScore().isPresent()) {
      s.append(String.format(Locale.ROOT, "score: mean %.3f%n", sum.meanScore().getAsDouble()));
    }
    if (r.gate().failed()) {
      s.append("gate FAILED: ").append(String.join("; ", r.gate().held())).append('\n');
    }
    return s.toString();
  }

  private static String ms(OptionalDouble d) {
    return d.isPresent() ? Long.toString(Math.round(d.getAsDouble())) : "-";
  }

  private static String cut(String s, int max) {
    return s.length() > max ? s.substring(0, max - 3) + "..." : s;
  }

  /**
   * The progress line: on a terminal one line redrawn at most five times a second; elsewhere a
   * plain line at each tenth of the way.
   */
  static final class Ticker implements ReplayEval.Progress {
    private final PrintStream err;
    private final boolean tty;
    private long lastDraw;
    private long lastTenth = -1;
    private long highest;
    private boolean drawn;

    Ticker(PrintStream err, boolean tty) {
      this.err = err;
      this.tty = tty;
    }

    @Override
    public synchronized void update(long finished, long total, Summary s) {
      // workers report in any order: show the summary's own count, and never a step back
      long done = Math.max(finished, s.total());
      if (done < highest) {
        return;
      }
      highest = done;
      // the line is made only when it is shown: this runs once per envelope
      if (tty) {
        long now = System.nanoTime();
        if (done == total || now - lastDraw > 200_000_000L) {
          err.print("\r" + bar(done, total) + " " + line(done, total, s) + "\u001b[K");
          err.flush();
          lastDraw = now;
          drawn = true;
        }
      } else {
        long tenth = total == 0 ? 10 : done * 10 / total;
        if (tenth != lastTenth) {
          lastTenth = tenth;
          err.println(line(done, total, s));
        }
      }
    }

    private static String line(long done, long total, Summary s) {
      return String.format(
          Locale.ROOT,
          "replay-eval: %d/%d  equal %d  different %d  candidate errors %d",
          done,
          total,
          s.count(Summary.Verdict.EQUAL),
          s.count(Summary.Verdict.DIFFERENT),
          s.count(Summary.Verdict.CANDIDATE_ERROR));
    }

    synchronized void end() {
      if (tty && drawn) {
        err.println();
      }
    }

    private static String bar(long done, long total) {
      int width = 20;
      int filled = total == 0 ? width : (int) (width * done / total);
      return "[" + "#".repeat(filled) + " ".repeat(width - filled) + "]";
    }
  }
}

package io.taskmesh.cli.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.Function;

/**
 * The {@code --fail-if} expression: comparisons of named metrics joined by {@code and} / {@code or}
 * (and binds tighter; parentheses group). A value may end in {@code %} (a count as a share of all
 * envelopes) or {@code x} (the candidate's latency as a multiple of the live one's).
 *
 * <pre>
 * expr       = conjunction { "or" conjunction }
 * conjunction= comparison { "and" comparison }
 * comparison = "(" expr ")" | metric op number [ "%" | "x" ]
 * op         = ">" | ">=" | "<" | "<=" | "==" | "!="
 * </pre>
 */
public final class Gate {
  /** Metrics that count envelopes: the ones {@code %} applies to. */
  static final Set<String> COUNTS =
      Set.of("total", "equal", "different", "candidate_errors", "live_errors", "no_live_output");

  /** The candidate's latencies: the ones {@code x} applies to (against live_p50 / live_p99). */
  static final Set<String> RATIOS = Set.of("p50", "p99");

  static final Set<String> OTHERS = Set.of("live_p50", "live_p99", "score");

  /** A bad expression; the message says what and where, in one line. */
  public static final class BadExpression extends Exception {
    private static final long serialVersionUID = 1L;

    BadExpression(String message) {
      super(message, null, false, false);
    }
  }

  /** What the gate said: whether it failed, and the comparisons that held, with their values. */
  public record Verdict(boolean failed, List<String> held) {}

  private interface Node {
    boolean eval(Function<String, OptionalDouble> metrics, List<String> held);
  }

  private record Or(List<Node> parts) implements Node {
    @Override
    public boolean eval(Function<String, OptionalDouble> m, List<String> held) {
      boolean any = false;
      for (Node n : parts) {
        any |= n.eval(m, held); // every part, so each comparison that held is named
      }
      return any;
    }
  }

  private record And(List<Node> parts) implements Node {
    @Override
    public boolean eval(Function<String, OptionalDouble> m, List<String> held) {
      List<String> mine = new ArrayList<>();
      for (Node n : parts) {
        if (!n.eval(m, mine)) {
          return false;
        }
      }
      held.addAll(mine);
      return true;
    }
  }

  private record Compare(String metric, String op, double value, String unit) implements Node {
    @Override
    public boolean eval(Function<String, OptionalDouble> m, List<String> held) {
      OptionalDouble raw = m.apply(metric);
      if (raw.isEmpty()) {
        return false;
      }
      double actual = raw.getAsDouble();
      if (unit.equals("%")) {
        double total = m.apply("total").orElse(0);
        actual = total == 0 ? 0 : 100.0 * actual / total;
      } else if (unit.equals("x")) {
        OptionalDouble live = m.apply("live_" + metric);
        if (live.isEmpty() || live.getAsDouble() <= 0) {
          return false;
        }
        actual = actual / live.getAsDouble();
      }
      boolean holds =
          switch (op) {
            case ">" -> actual > value;
            case ">=" -> actual >= value;
            case "<" -> actual < value;
            case "<=" -> actual <= value;
            case "==" -> actual == value;
            default -> actual != value;
          };
      if (holds) {
        held.add(
            String.format(
                Locale.ROOT,
                "%s is %s%s (%s %s%s)",
                metric,
                number(actual),
                unit,
                op,
                number(value),
                unit));
      }
      return holds;
    }
  }

  private final String text;
  private final Node root;

  private Gate(String text, Node root) {
    this.text = text;
    this.root = root;
  }

  public String text() {
    return text;
  }

  /** Evaluates the gate on a run's metrics (see {@link Summary#metric}). */
  public Verdict evaluate(Function<String, OptionalDouble> metrics) {
    List<String> held = new ArrayList<>();
    boolean failed = root.eval(metrics, held);
    return new Verdict(failed, failed ? List.copyOf(held) : List.of());
  }

  /**
   * Parses {@code text}.
   *
   * @param scoreGiven whether the run has a score function (else {@code score} is refused)
   */
  public static Gate parse(String text, boolean scoreGiven) throws BadExpression {
    if (text == null || text.isBlank()) {
      throw new BadExpression("the gate is empty: give comparisons such as 'different > 5%'");
    }
    Parser p = new Parser(tokens(text), scoreGiven);
    Node n = p.expr();
    if (p.pos < p.tokens.size()) {
      throw new BadExpression(
          "unexpected '" + p.tokens.get(p.pos).text + "' at character " + p.tokens.get(p.pos).at);
    }
    return new Gate(text, n);
  }

  private record Token(String text, int at) {}

  private static List<Token> tokens(String s) throws BadExpression {
    List<Token> out = new ArrayList<>();
    int i = 0;
    while (i < s.length()) {
      char c = s.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '(' || c == ')' || c == '%') {
        out.add(new Token(String.valueOf(c), i + 1));
        i++;
      } else if (c == '>' || c == '<' || c == '=' || c == '!') {
        int start = i;
        i++;
        if (i < s.length() && s.charAt(i) == '=') {
          i++;
        }
        String op = s.substring(start, i);
        if (op.equals("=") || op.equals("!")) {
          throw new BadExpression(
              "'" + op + "' at character " + (start + 1) + " is no comparison (use == or !=)");
        }
        out.add(new Token(op, start + 1));
      } else if (Character.isDigit(c) || c == '.') {
        int start = i;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
          i++;
        }
        out.add(new Token(s.substring(start, i), start + 1));
      } else if (Character.isLetter(c) || c == '_') {
        int start = i;
        while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_')) {
          i++;
        }
        out.add(new Token(s.substring(start, i).toLowerCase(Locale.ROOT), start + 1));
      } else {
        throw new BadExpression("'" + c + "' at character " + (i + 1) + " has no meaning here");
      }
    }
    return out;
  }

  private static final class Parser {
    final List<Token> tokens;
    final boolean scoreGiven;
    int pos;

    Parser(List<Token> tokens, boolean scoreGiven) {
      this.tokens = tokens;
      this.scoreGiven = scoreGiven;
    }

    Node expr() throws BadExpression {
      List<Node> parts = new ArrayList<>();
      parts.add(conjunction());
      while (peek("or")) {
        pos++;
        parts.add(conjunction());
      }
      return parts.size() == 1 ? parts.get(0) : new Or(parts);
    }

    Node conjunction() throws BadExpression {
      List<Node> parts = new ArrayList<>();
      parts.add(comparison());
      while (peek("and")) {
        pos++;
        parts.add(comparison());
      }
      return parts.size() == 1 ? parts.get(0) : new And(parts);
    }

    Node comparison() throws BadExpression {
      Token t = next("a metric or '('");
      if (t.text.equals("(")) {
        Node inner = expr();
        Token close = next("')'");
        if (!close.text.equals(")")) {
          throw new BadExpression("expected ')' at character " + close.at);
        }
        return inner;
      }
      String metric = t.text;
      if (!COUNTS.contains(metric) && !RATIOS.contains(metric) && !OTHERS.contains(metric)) {
        throw new BadExpression(
            "'"
                + metric
                + "' at character "
                + t.at
                + " is no metric; known: different, equal, candidate_errors, live_errors,"
                + " no_live_output, total, p50, p99, live_p50, live_p99, score");
      }
      if (metric.equals("score") && !scoreGiven) {
        throw new BadExpression("the gate uses score, but no --score function was given");
      }
      Token op = next("a comparison after " + metric);
      if (!Set.of(">", ">=", "<", "<=", "==", "!=").contains(op.text)) {
        throw new BadExpression(
            "expected a comparison (> >= < <= == !=) after "
                + metric
                + " at character "
                + op.at
                + ", found '"
                + op.text
                + "'");
      }
      Token num = next("a number after " + metric + " " + op.text);
      double value;
      try {
        value = Double.parseDouble(num.text);
      } catch (NumberFormatException e) {
        throw new BadExpression(
            "expected a number at character " + num.at + ", found '" + num.text + "'");
      }
      String unit = "";
      if (peek("%") || peek("x")) {
        unit = tokens.get(pos++).text;
      }
      if (unit.equals("%") && !COUNTS.contains(metric)) {
        throw new BadExpression("'%' applies to counts of envelopes, not to " + metric);
      }
      if (unit.equals("x") && !RATIOS.contains(metric)) {
        throw new BadExpression("'x' compares p50 or p99 with the live actor's, not " + metric);
      }
      return new Compare(metric, op.text, value, unit);
    }

    boolean peek(String text) {
      return pos < tokens.size() && tokens.get(pos).text.equals(text);
    }

    Token next(String expected) throws BadExpression {
      if (pos >= tokens.size()) {
        throw new BadExpression("the gate ends where " + expected + " was expected");
      }
      return tokens.get(pos++);
    }
  }

  private static String number(double d) {
    return d == Math.rint(d) && Math.abs(d) < 1e15
        ? Long.toString((long) d)
        : String.format(Locale.ROOT, "%.2f", d);
  }
}

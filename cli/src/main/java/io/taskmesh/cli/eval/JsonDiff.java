package io.taskmesh.cli.eval;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A structural diff of two JSON values: the paths (JSON Pointer, {@code ""} for the whole value)
 * where the candidate added, removed or changed something compared with the live value. Objects are
 * compared key by key, arrays index by index, numbers by value ({@code 1} equals {@code 1.0}).
 */
public final class JsonDiff {
  /** At most this many changes are listed; {@link Result#truncated} tells when there were more. */
  public static final int MAX_CHANGES = 50;

  public enum Kind {
    ADDED,
    REMOVED,
    CHANGED;

    public String wire() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** One difference: {@code live} is null for an addition, {@code candidate} for a removal. */
  public record Change(String path, Kind kind, JsonNode live, JsonNode candidate) {}

  /** The changes found, in document order. */
  public record Result(List<Change> changes, boolean truncated) {
    public boolean equal() {
      return changes.isEmpty();
    }
  }

  private final List<Change> changes = new ArrayList<>();
  private boolean truncated;

  private JsonDiff() {}

  private static final Result NONE = new Result(List.of(), false);

  public static Result diff(JsonNode live, JsonNode candidate) {
    // equal trees (Jackson's equals: objects key by key whatever the order, arrays index by index,
    // numbers of the same type by value) have no change the walk could find: most envelopes of a
    // replay are equal, and this skips building a path string for every value of both sides
    if (live != null && live.equals(candidate)) {
      return NONE;
    }
    JsonDiff d = new JsonDiff();
    d.walk("", live, candidate);
    return new Result(List.copyOf(d.changes), d.truncated);
  }

  private void walk(String path, JsonNode live, JsonNode candidate) {
    if (live == null || live.isMissingNode()) {
      if (candidate != null && !candidate.isMissingNode()) {
        add(new Change(path, Kind.ADDED, null, candidate));
      }
      return;
    }
    if (candidate == null || candidate.isMissingNode()) {
      add(new Change(path, Kind.REMOVED, live, null));
      return;
    }
    if (live.isObject() && candidate.isObject()) {
      Set<String> keys = new LinkedHashSet<>();
      live.fieldNames().forEachRemaining(keys::add);
      candidate.fieldNames().forEachRemaining(keys::add);
      for (String k : keys) {
        walk(path + "/" + escape(k), live.get(k), candidate.get(k));
      }
      return;
    }
    if (live.isArray() && candidate.isArray()) {
      int n = Math.max(live.size(), candidate.size());
      for (int i = 0; i < n; i++) {
        walk(path + "/" + i, live.get(i), candidate.get(i));
      }
      return;
    }
    if (!same(live, candidate)) {
      add(new Change(path, Kind.CHANGED, live, candidate));
    }
  }

  private static boolean same(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  private void add(Change c) {
    if (changes.size() < MAX_CHANGES) {
      changes.add(c);
    } else {
      truncated = true;
    }
  }

  /** JSON Pointer escaping of one key: {@code ~} as {@code ~0}, {@code /} as {@code ~1}. */
  static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
  }

  /** The paths of {@code r}'s changes, e.g. for a table cell. */
  public static String paths(Result r, int max) {
    StringBuilder s = new StringBuilder();
    Iterator<Change> it = r.changes().iterator();
    int shown = 0;
    while (it.hasNext() && shown < max) {
      Change c = it.next();
      if (shown > 0) {
        s.append(", ");
      }
      s.append(c.kind() == Kind.ADDED ? "+" : c.kind() == Kind.REMOVED ? "-" : "~")
          .append(c.path().isEmpty() ? "/" : c.path());
      shown++;
    }
    int more = r.changes().size() - shown;
    if (more > 0 || r.truncated()) {
      s.append(" (").append(r.truncated() ? "more" : more + " more").append(")");
    }
    return s.toString();
  }
}

package io.taskmesh.devkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which package of a module uses which, read from its Java sources: imports (single, static,
 * wildcard) and fully qualified names in code. A plain scan rather than a bytecode tool, so a test
 * can keep a module's packages in layers without one more dependency; comments and string literals
 * are left out, so a class named in a log message or a doc comment is no use.
 */
public final class PackageGraph {
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");
  private static final Pattern IMPORT =
      Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+?)(?:\\.\\*)?\\s*;");

  /**
   * Comments and literals in one alternation, matched left to right, so a {@code "/*"} in a string
   * opens no comment and a {@code //} in a comment opens no string.
   */
  private static final Pattern NOT_CODE =
      Pattern.compile(
          "(?s)/\\*.*?\\*/|//[^\\n]*|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])+'");

  private final String base;

  /** package -> used package -> where ("File.java: import a.b.C"), in file order. */
  private final Map<String, Map<String, List<String>>> uses = new TreeMap<>();

  PackageGraph(String base) {
    this.base = base;
  }

  /** Reads every {@code .java} file under {@code sourceRoot}; only packages under {@code base}. */
  public static PackageGraph scan(Path sourceRoot, String base) {
    PackageGraph graph = new PackageGraph(base);
    try (Stream<Path> files = Files.walk(sourceRoot)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        graph.read(file.getFileName().toString(), Files.readString(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return graph;
  }

  /** Adds one source file (its name is only used in messages). */
  void read(String fileName, String source) {
    String code = NOT_CODE.matcher(source).replaceAll(" ");
    Matcher pkg = PACKAGE.matcher(code);
    if (!pkg.find() || !inBase(pkg.group(1))) {
      return;
    }
    String from = pkg.group(1);
    uses.computeIfAbsent(from, p -> new TreeMap<>());
    Matcher imports = IMPORT.matcher(code);
    while (imports.find()) {
      use(from, packageOf(imports.group(1)), fileName + ": import " + imports.group(1));
    }
    String body = IMPORT.matcher(code.substring(pkg.end())).replaceAll(" ");
    Matcher qualified =
        Pattern.compile("(?<![\\w.])" + Pattern.quote(base) + "(?:\\.\\w+)*").matcher(body);
    while (qualified.find()) {
      use(from, packageOf(qualified.group()), fileName + ": names " + qualified.group());
    }
  }

  private void use(String from, String to, String where) {
    if (to != null && inBase(to) && !to.equals(from)) {
      uses.get(from).computeIfAbsent(to, t -> new ArrayList<>()).add(where);
    }
  }

  private boolean inBase(String pkg) {
    return pkg.equals(base) || pkg.startsWith(base + ".");
  }

  /**
   * The package part of a qualified name: the segments before the first capitalised one ({@code
   * a.b.C.D} -> {@code a.b}); a name without a class (a wildcard import) is a package already.
   */
  static String packageOf(String name) {
    List<String> segments = new ArrayList<>();
    for (String s : name.split("\\.")) {
      if (!s.isEmpty() && Character.isUpperCase(s.charAt(0))) {
        break;
      }
      segments.add(s);
    }
    return String.join(".", segments);
  }

  /** The scanned packages and, for each, the packages it uses. */
  public Map<String, Set<String>> edges() {
    Map<String, Set<String>> out = new TreeMap<>();
    uses.forEach((from, to) -> out.put(from, new TreeSet<>(to.keySet())));
    return out;
  }

  /**
   * Every import cycle, one line per use inside it; empty when the packages form a DAG. A cycle is
   * a strongly connected group of packages (Tarjan), so each is reported once however many loops it
   * holds.
   */
  public List<String> cycles() {
    List<String> out = new ArrayList<>();
    for (Set<String> group : stronglyConnected()) {
      if (group.size() < 2) {
        continue;
      }
      out.add("cycle between " + group + ":");
      for (String from : group) {
        uses.get(from)
            .forEach(
                (to, where) -> {
                  if (group.contains(to)) {
                    where.forEach(w -> out.add("  " + from + " -> " + to + " (" + w + ")"));
                  }
                });
      }
    }
    return out;
  }

  /**
   * Uses that break the layering: {@code layers} lists packages from the top (the composition root)
   * down, several packages per layer; a package may use only packages of a lower layer. Each entry
   * is a package name relative to the base ({@code ""} is the base itself). A scanned package that
   * no layer names is reported too, so a new package gets a place before it gets users.
   */
  public List<String> layerViolations(List<List<String>> layers) {
    Map<String, Integer> rank = new HashMap<>();
    for (int i = 0; i < layers.size(); i++) {
      for (String relative : layers.get(i)) {
        rank.put(relative.isEmpty() ? base : base + "." + relative, i);
      }
    }
    List<String> out = new ArrayList<>();
    uses.forEach(
        (from, used) -> {
          if (!rank.containsKey(from)) {
            out.add(from + " is in no layer: add it to the layer list");
            return;
          }
          used.forEach(
              (to, where) -> {
                Integer toRank = rank.get(to);
                if (toRank == null || toRank <= rank.get(from)) {
                  String why =
                      toRank == null
                          ? "a package in no layer"
                          : toRank < rank.get(from)
                              ? "a package above it"
                              : "a package of its own layer";
                  where.forEach(w -> out.add(from + " uses " + why + ", " + to + " (" + w + ")"));
                }
              });
        });
    return out;
  }

  private List<Set<String>> stronglyConnected() {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new TreeSet<>();
    List<Set<String>> groups = new ArrayList<>();
    for (String p : uses.keySet()) {
      if (!index.containsKey(p)) {
        connect(p, index, low, stack, onStack, groups);
      }
    }
    return groups;
  }

  private void connect(
      String p,
      Map<String, Integer> index,
      Map<String, Integer> low,
      Deque<String> stack,
      Set<String> onStack,
      List<Set<String>> groups) {
    index.put(p, index.size());
    low.put(p, index.get(p));
    stack.push(p);
    onStack.add(p);
    for (String q : uses.getOrDefault(p, Map.of()).keySet()) {
      if (!index.containsKey(q)) {
        connect(q, index, low, stack, onStack, groups);
        low.put(p, Math.min(low.get(p), low.get(q)));
      } else if (onStack.contains(q)) {
        low.put(p, Math.min(low.get(p), index.get(q)));
      }
    }
    if (low.get(p).equals(index.get(p))) {
      Set<String> group = new TreeSet<>();
      String q;
      do {
        q = stack.pop();
        onStack.remove(q);
        group.add(q);
      } while (!q.equals(p));
      groups.add(group);
    }
  }
}

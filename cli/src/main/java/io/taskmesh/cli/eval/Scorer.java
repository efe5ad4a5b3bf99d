package io.taskmesh.cli.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code --score module.fn}: the user's {@code (live, candidate, envelope) -> float} in one Python
 * process of its own, fed one JSON line per envelope on stdin and answering one per line on stdout
 * (what the function prints goes to stderr, so it cannot break the exchange). Calls are one at a
 * time. The process ends when its stdin closes, so it never outlives this one.
 */
final class Scorer implements AutoCloseable {
  /** One score, or why there is none. */
  record Score(Double value, String error) {}

  private static final String PROGRAM =
      """
      import importlib, json, sys
      name = sys.argv[1]
      mod, _, fn = name.rpartition('.')
      out = sys.stdout
      sys.stdout = sys.stderr
      try:
          f = getattr(importlib.import_module(mod), fn)
      except Exception as e:
          out.write(json.dumps({'fatal': '%s: %s' % (type(e).__name__, e)}) + '\\n')
          out.flush()
          sys.exit(1)
      out.write('{"ready": true}\\n')
      out.flush()
      for line in sys.stdin:
          req = json.loads(line)
          try:
              res = {'score': float(f(req['live'], req['candidate'], req['envelope']))}
          except Exception as e:
              res = {'error': '%s: %s' % (type(e).__name__, e)}
          out.write(json.dumps(res) + '\\n')
          out.flush()
      """;

  private final Process process;
  private final BufferedWriter in;
  private final BufferedReader out;

  private Scorer(Process process) {
    this.process = process;
    this.in =
        new BufferedWriter(
            new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
    this.out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
  }

  /** Starts the scorer; the module is looked for in {@code paths} (in order). */
  static Scorer start(String python, String function, List<Path> paths) {
    if (!function.matches("[A-Za-z_][A-Za-z0-9_.]*\\.[A-Za-z_][A-Za-z0-9_]*")) {
      throw new EvalFailure(2, "--score wants module.function, got '" + function + "'");
    }
    ProcessBuilder pb = new ProcessBuilder(python, "-c", PROGRAM, function);
    pb.environment()
        .put(
            "PYTHONPATH",
            String.join(
                File.pathSeparator,
                paths.stream().map(p -> p.toAbsolutePath().toString()).toList()));
    pb.redirectError(ProcessBuilder.Redirect.DISCARD);
    Scorer s;
    try {
      s = new Scorer(pb.start());
    } catch (IOException e) {
      throw new EvalFailure(3, "cannot start " + python + " for --score: " + e.getMessage());
    }
    try {
      String first = s.out.readLine();
      JsonNode hello = first == null ? null : Json.MAPPER.readTree(first);
      if (hello == null || !hello.path("ready").asBoolean()) {
        s.close();
        throw new EvalFailure(
            2,
            "--score "
                + function
                + " cannot be loaded: "
                + (hello == null ? "the scorer exited" : hello.path("fatal").asText()));
      }
    } catch (IOException e) {
      s.close();
      throw new EvalFailure(3, "the scorer did not answer: " + e.getMessage());
    }
    return s;
  }

  synchronized Score score(JsonNode live, JsonNode candidate, JsonNode envelope) {
    ObjectNode req = Json.MAPPER.createObjectNode();
    req.set("live", live);
    req.set("candidate", candidate);
    req.set("envelope", envelope);
    try {
      in.write(Json.MAPPER.writeValueAsString(req));
      in.write('\n');
      in.flush();
      String line = out.readLine();
      if (line == null) {
        return new Score(null, "the scorer exited");
      }
      JsonNode res = Json.MAPPER.readTree(line);
      return res.has("score")
          ? new Score(res.get("score").asDouble(), null)
          : new Score(null, res.path("error").asText("no score"));
    } catch (IOException e) {
      return new Score(null, "the scorer did not answer: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    try {
      in.close();
    } catch (IOException e) {
      // the process is stopped below anyway
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}

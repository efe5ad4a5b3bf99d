package io.taskmesh.cli;

import io.taskmesh.servicekit.Env;
import io.taskmesh.sidecar.ChildEnvironment;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What {@code ./taskmesh dev} checks of a pipeline directory before it starts any infrastructure:
 * both files parse, every flow's actors are defined, and every handler imports, asked of the Python
 * runtime itself ({@code python3 -m taskmesh_runtime --check}, the import rules serving uses), all
 * actors at once. A problem is one line per actor naming the file, the actor and the fix; exit 2.
 */
final class DevConfigCheck {
  static final int EXIT_BAD_CONFIG = 2;
  private static final long CHECK_TIMEOUT_SECONDS = 120;

  private DevConfigCheck() {}

  static DevConfig loadAndCheck(Path dir, Path repoRoot) {
    DevConfig config;
    try {
      config = DevConfig.load(dir);
    } catch (RuntimeException e) {
      String m = e.getMessage() == null ? e.toString() : e.getMessage();
      throw new CliFailure(EXIT_BAD_CONFIG, m.lines().findFirst().orElse(m));
    }
    List<String> problems = handlerProblems(config, repoRoot.resolve("runtime"));
    if (!problems.isEmpty()) {
      throw new CliFailure(EXIT_BAD_CONFIG, String.join("\ntaskmesh: ", problems));
    }
    return config;
  }

  private static List<String> handlerProblems(DevConfig config, Path runtimeDir) {
    Path actorsFile = config.dir().resolve("actors.yaml");
    Map<ActorSpec, Process> checks = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    try {
      for (ActorSpec actor : config.actors()) {
        checks.put(actor, startCheck(actor, runtimeDir));
      }
      for (Map.Entry<ActorSpec, Process> c : checks.entrySet()) {
        Process p = c.getValue();
        if (!p.waitFor(CHECK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          problems.add(
              actorsFile
                  + ": actor '"
                  + c.getKey().name()
                  + "': importing its handler did not finish in "
                  + CHECK_TIMEOUT_SECONDS
                  + " s; does the module do heavy work at import?");
        } else if (p.exitValue() != 0) {
          problems.add(problem(actorsFile, c.getKey(), p));
        }
      }
    } catch (IOException e) {
      throw new CliFailure(
          EXIT_BAD_CONFIG,
          "cannot run "
              + python()
              + " to check the handlers ("
              + e.getMessage()
              + "); install Python 3 or set SVC_PYTHON");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliFailure(1, "interrupted while checking the handlers");
    } finally {
      checks.values().forEach(Process::destroyForcibly);
    }
    return problems;
  }

  private static Process startCheck(ActorSpec actor, Path runtimeDir) throws IOException {
    ProcessBuilder pb =
        new ProcessBuilder(python(), "-m", "taskmesh_runtime", "--check").redirectErrorStream(true);
    Map<String, String> env = new HashMap<>(actor.env());
    env.put("PYTHONPATH", runtimeDir.toAbsolutePath() + File.pathSeparator + actor.dir());
    env.put("SVC_HANDLER", actor.handler());
    env.put("PYTHONDONTWRITEBYTECODE", "1");
    // the check imports the handler: it must not see dev's secrets either
    ChildEnvironment.replace(pb, ChildEnvironment.forRuntime(System.getenv(), env));
    return pb.start();
  }

  /** The runtime's own reason, without its "taskmesh-runtime: fatal:" prefix. */
  private static String problem(Path actorsFile, ActorSpec actor, Process p) {
    String out;
    try {
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      out = "";
    }
    String reason =
        out.lines()
            .filter(l -> l.contains("fatal:"))
            .map(l -> l.substring(l.indexOf("fatal:") + "fatal:".length()).trim())
            .findFirst()
            .orElse("the runtime exited with " + p.exitValue());
    return actorsFile
        + ": actor '"
        + actor.name()
        + "': "
        + reason
        + "; fix its 'handler:' (module.function, the module in "
        + actor.dir()
        + ")";
  }

  private static String python() {
    return Env.of(System.getenv()).string("SVC_PYTHON", "python3");
  }
}

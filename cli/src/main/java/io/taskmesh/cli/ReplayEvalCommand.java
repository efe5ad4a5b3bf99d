package io.taskmesh.cli;

import io.taskmesh.cli.eval.EvalFailure;
import io.taskmesh.cli.eval.EvalRun;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.topology.TaskTopics;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./taskmesh replay-eval}: replays the envelopes an actor received through a candidate
 * handler and compares its answers with the live actor's (docs/replay-eval.md). This class reads
 * the options and the pipeline directory; {@link EvalRun} does the rest.
 */
@Command(
    name = "replay-eval",
    mixinStandardHelpOptions = true,
    description =
        "Run the envelopes an actor received (its retained topic) through a candidate handler "
            + "beside the cluster and compare each answer with the live actor's output; never "
            + "writes to a topic, the gateway or live state. Exit: 0 done (gate passed), 1 the "
            + "--fail-if gate failed, 2 options or input refused, 3 cluster or candidate not reachable.")
final class ReplayEvalCommand implements Callable<Integer> {
  @Option(names = "--actor", required = true, description = "the live actor to replay")
  String actor;

  @Option(
      names = "--candidate",
      required = true,
      description =
          "a folder holding a new version of the actor's module (the handler name is the live "
              + "actor's, from --config), or a handler module.function found in --candidate-dir")
  String candidate;

  @Option(
      names = "--candidate-dir",
      description = "where a --candidate module.function lives (default: the working directory)")
  Path candidateDir;

  @Option(names = "--flow", description = "only envelopes of this flow (by its route)")
  String flow;

  @Option(names = "--since", description = "envelopes received in the last D (30m, 24h, 7d)")
  String since;

  @Option(
      names = "--from-offset",
      description = "start at this offset on every partition, or per partition: 0:120,3:88")
  String fromOffset;

  @Option(names = "--limit", description = "at most N envelopes")
  Long limit;

  @Option(names = "--concurrency", description = "envelopes in flight at once (default 8)")
  int concurrency = 8;

  @Option(
      names = "--timeout",
      description = "how long the candidate may take per envelope (default 30s)")
  String timeout = "30s";

  @Option(names = "--json", description = "print the summary as JSON (for CI), no table")
  boolean json;

  @Option(
      names = "--score",
      description = "module.fn: a Python (live, candidate, envelope) -> float per envelope")
  String score;

  @Option(
      names = "--fail-if",
      description = "a gate, e.g. 'different > 5% or candidate_errors > 0 or p99 > 1.2x'")
  String failIf;

  @Option(names = "--kafka", description = "bootstrap servers (default KAFKA_BOOTSTRAP_SERVERS)")
  String kafka;

  @Option(
      names = "--config",
      description =
          "the pipeline directory (flows.yaml, actors.yaml; default the bundled examples/)")
  Path config;

  @Option(
      names = "--data",
      description =
          "dev's data folder: the report goes to DATA/evals/, dev's local state backends are "
              + "read from DATA/state/local-backends.json (default .taskmesh/)")
  Path data;

  @Option(
      names = "--no-state",
      description =
          "give the candidate no state-proxy mounts (default: the actor's mounts of --config, "
              + "each on a scratch prefix replay-eval/<eval id>/ of the same backend)")
  boolean noState;

  private final Map<String, String> env;
  private final PrintStream out;
  private final PrintStream err;

  ReplayEvalCommand() {
    this(System.getenv(), System.out, System.err);
  }

  ReplayEvalCommand(Map<String, String> env, PrintStream out, PrintStream err) {
    this.env = env;
    this.out = out;
    this.err = err;
  }

  @Override
  public Integer call() {
    try {
      return EvalRun.execute(request(), out, err);
    } catch (EvalFailure r) {
      err.println("replay-eval: " + r.getMessage());
      return r.exitCode();
    } catch (RuntimeException e) {
      // anything else (a scratch file that cannot be written, ...) in one line, never a trace; 3,
      // not 1, so that a pipeline does not read it as a failed gate
      err.println("replay-eval: stopped: " + Main.Dev.describe(e));
      return 3;
    }
  }

  private EvalRun.Request request() {
    Env vars = Env.of(env);
    Path root = root(vars);
    String bootstrap = kafka != null ? kafka : vars.optional("KAFKA_BOOTSTRAP_SERVERS");
    if (bootstrap == null || bootstrap.isBlank()) {
      throw new EvalFailure(2, "say where Kafka is: --kafka HOST:PORT or KAFKA_BOOTSTRAP_SERVERS");
    }
    String namespace;
    try {
      namespace = TaskTopics.namespace(vars);
    } catch (ConfigException e) {
      throw new EvalFailure(2, e.getMessage());
    }
    Path configDir = (config != null ? config : root.resolve("examples")).toAbsolutePath();
    // always: the live actor's handler, variables and mounts, and the flows, come from it
    DevConfig pipeline;
    try {
      pipeline = DevConfig.load(configDir);
    } catch (RuntimeException e) {
      throw new EvalFailure(2, Main.Dev.describe(e));
    }
    Path handlerDir;
    String handler;
    if (Files.isDirectory(Path.of(candidate))) {
      handlerDir = Path.of(candidate).toAbsolutePath();
      handler =
          pipeline.actors().stream()
              .filter(a -> a.name().equals(actor))
              .map(ActorSpec::handler)
              .findFirst()
              .orElseThrow(
                  () ->
                      new EvalFailure(
                          2,
                          configDir.resolve("actors.yaml")
                              + " names no actor '"
                              + actor
                              + "', so the handler in "
                              + candidate
                              + " is unknown; give --candidate module.function instead"));
    } else if (candidate.matches("[A-Za-z_][A-Za-z0-9_.]*\\.[A-Za-z_][A-Za-z0-9_]*")) {
      handler = candidate;
      handlerDir = (candidateDir != null ? candidateDir : Path.of("")).toAbsolutePath();
      if (!Files.isDirectory(handlerDir)) {
        throw new EvalFailure(2, "--candidate-dir " + candidateDir + " is not a folder");
      }
    } else {
      throw new EvalFailure(
          2, "--candidate wants a folder or a handler module.function, got '" + candidate + "'");
    }
    Predicate<Envelope> keep = e -> true;
    if (flow != null) {
      FlowConfig f = pipeline.flows().get(flow);
      if (f == null) {
        throw new EvalFailure(2, "no flow '" + flow + "' in " + configDir.resolve("flows.yaml"));
      }
      List<String> route = f.startRoute().actors();
      keep = e -> e.route().actors().equals(route);
    }
    Path dataDir = (data != null ? data : root.resolve(".taskmesh")).toAbsolutePath();
    EvalState state = null;
    // an actor that actors.yaml does not list gets no variables and no mounts
    List<ActorSpec> actors = pipeline.actors();
    ActorSpec live = actors.stream().filter(a -> a.name().equals(actor)).findFirst().orElse(null);
    if (!noState) {
      if (live != null && !live.stateProxy().isEmpty()) {
        state = new EvalState(live, actors, dataDir);
      }
    }
    return new EvalRun.Request(
        bootstrap,
        namespace,
        actor,
        root.resolve("runtime"),
        handlerDir,
        handler,
        keep,
        since,
        fromOffset,
        limit,
        concurrency,
        timeout,
        score,
        vars.string("SVC_PYTHON", "python3"),
        failIf,
        dataDir.resolve("evals"),
        json,
        state,
        live == null ? Map.of() : live.env());
  }

  private static Path root(Env vars) {
    String home = vars.optional("TASKMESH_HOME");
    Path root = home != null ? Path.of(home) : Path.of("").toAbsolutePath();
    if (!Files.isDirectory(root.resolve("runtime").resolve("taskmesh_runtime"))) {
      throw new EvalFailure(
          2,
          "cannot find runtime/taskmesh_runtime under "
              + root
              + "; run ./taskmesh from the repository");
    }
    return root.toAbsolutePath();
  }
}

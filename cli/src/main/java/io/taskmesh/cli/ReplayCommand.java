package io.taskmesh.cli;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Durations;
import io.taskmesh.servicekit.Env;
import io.taskmesh.topology.ReplaySwap;
import io.taskmesh.topology.TaskReplay;
import io.taskmesh.topology.TaskTopics;
import io.taskmesh.topology.TaskViewConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./taskmesh replay}: rebuilds every task view from the task event log. Reads the same
 * environment as the gateway (KAFKA_BOOTSTRAP_SERVERS, SVC_STREAMS_APPLICATION_ID, SVC_STATE_DIR,
 * SVC_TASK_TOPIC_PARTITIONS, SVC_TOPIC_REPLICATION_FACTOR, SVC_TASK_EVENTS_TOPIC, ...). Stop every
 * gateway replica first; the command refuses to reset a running application.
 */
@Command(
    name = "replay",
    mixinStandardHelpOptions = true,
    description =
        "Rebuild every task view from the event log: reset the Streams "
            + "application (offsets, changelog topics, local state) and fold the log again from the earliest event. "
            + "Stop every gateway replica first.")
final class ReplayCommand implements Callable<Integer> {
  @Option(
      names = "--reset-only",
      description = "reset, and let the next gateway start do the reprocessing")
  boolean resetOnly;

  @Option(names = "--timeout", description = "how long the rebuild may take (default 10m)")
  String timeout = "10m";

  private final Map<String, String> env;

  ReplayCommand() {
    this(System.getenv());
  }

  ReplayCommand(Map<String, String> env) {
    this.env = env;
  }

  @Override
  public Integer call() {
    Env vars = Env.of(env);
    TaskViewConfig config;
    TaskTopics topics;
    try {
      topics = TaskTopics.fromEnv(env);
      String stateDir = vars.optional("SVC_STATE_DIR");
      // the same variables, defaults and limits as the gateway's GatewayConfig
      config =
          new TaskViewConfig(
              vars.required("KAFKA_BOOTSTRAP_SERVERS"),
              TaskTopics.applicationId(env),
              stateDir == null
                  ? Path.of(System.getProperty("java.io.tmpdir"), "taskmesh-gateway-state")
                  : Path.of(stateDir),
              vars.integer("SVC_TASK_TOPIC_PARTITIONS", 3, 1, 10_000),
              (short) vars.integer("SVC_TOPIC_REPLICATION_FACTOR", 1, 1, 32));
    } catch (ConfigException e) {
      System.err.println("replay: " + e.getMessage());
      return 2;
    }
    Duration limit = Durations.parse("--timeout", timeout);
    try {
      if (resetOnly) {
        // before the reset: a log that lost its first events must not replace a complete view
        TaskReplay.checkLogComplete(config, topics);
        System.out.println(
            "replay: resetting application "
                + config.applicationId()
                + " on "
                + config.bootstrapServers());
        TaskReplay.reset(config, Duration.ofMinutes(2));
        System.out.println(
            "replay: reset done; the next gateway start folds the log from the beginning");
        return 0;
      }
      System.out.println(
          "replay: folding the log into "
              + config.applicationId()
              + ReplaySwap.SIDE_SUFFIX
              + " beside the current view on "
              + config.bootstrapServers());
      // the current view is replaced only once the new one is complete
      TaskReplay.Result r = ReplaySwap.rebuildBeside(config, topics, limit);
      System.out.printf(
          "replay: %d events folded into %d tasks in %.1f s%n",
          r.events(), r.tasks(), r.took().toMillis() / 1000.0);
      return 0;
    } catch (IllegalStateException | IllegalArgumentException e) {
      System.err.println("replay: " + e.getMessage());
      return 1;
    }
  }
}

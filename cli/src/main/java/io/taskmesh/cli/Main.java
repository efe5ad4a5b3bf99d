package io.taskmesh.cli;

import io.taskmesh.cli.remote.CallCommand;
import io.taskmesh.cli.remote.FlowsCommand;
import io.taskmesh.cli.remote.TasksCommand;
import io.taskmesh.servicekit.Env;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./taskmesh}: the launcher. */
@Command(
    name = "taskmesh",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Pipelines of actors on Kafka, tracked live.",
    subcommands = {
      Main.Dev.class,
      Main.GatewayCmd.class,
      Main.SidecarCmd.class,
      Main.KvConnectorCmd.class,
      Main.MeshApiCmd.class,
      ConnectorCommand.class,
      ReplayCommand.class,
      ReplayEvalCommand.class,
      CallCommand.class,
      TasksCommand.class,
      FlowsCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {

  public static void main(String[] args) {
    int status;
    try {
      status = new CommandLine(new Main()).execute(args);
    } catch (RuntimeException | Error e) {
      // picocli hands Errors back: without an exit here, threads a command started (servers,
      // Kafka clients) would keep the JVM running with nothing left to stop it
      System.err.println("taskmesh: " + Dev.describe(e));
      status = 1;
    }
    System.exit(status);
  }

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  @Command(
      name = "dev",
      mixinStandardHelpOptions = true,
      description =
          "Start the whole system locally: Kafka, Postgres, the gateway "
              + "(testing mode), a sidecar + Python runtime per actor, x-sink and x-sump.")
  static final class Dev implements Callable<Integer> {
    @Option(
        names = "--config",
        description =
            "pipeline directory with flows.yaml and actors.yaml "
                + "(default: the bundled examples/)")
    Path config;

    @Option(names = "--port", description = "gateway port (default 8000; 0 = any free port)")
    int port = 8000;

    @Option(
        names = "--mesh-port",
        description = "mesh-api external port (default 8080; 0 = any free port)")
    int meshPort = 8080;

    @Option(
        names = "--mesh-internal-port",
        description = "mesh-api internal port (default 8081; 0 = any free port)")
    int meshInternalPort = 8081;

    @Option(
        names = "--kafka",
        description =
            "bootstrap servers of a running Kafka to use "
                + "(default: start a local KRaft broker under --data)")
    String kafka;

    @Option(
        names = "--brokers",
        description =
            "how many local KRaft brokers to start (default 1); with 3, "
                + "every topic gets replication factor 3 and min.insync.replicas 2. With --kafka: how many "
                + "brokers that cluster has (sets the replication factor)")
    int brokers = 1;

    @Option(
        names = "--data",
        description =
            "where Kafka, Postgres and the task view keep their data "
                + "(default: .taskmesh/ in the repository)")
    Path data;

    @Override
    public Integer call() throws Exception {
      try {
        return runDev();
      } catch (CliFailure f) {
        System.err.println("taskmesh: " + f.getMessage());
        return f.exitCode();
      }
    }

    private int runDev() throws InterruptedException {
      Path root = repoRoot();
      Path dataDir = (data != null ? data : root.resolve(".taskmesh")).toAbsolutePath();
      // first of all: a second dev on a directory in use refuses at once, naming the first
      DevLock lock = DevLock.acquire(dataDir);
      DevConfig devConfig =
          DevConfigCheck.loadAndCheck(
              (config != null ? config : root.resolve("examples")).toAbsolutePath(), root);
      DevStack.Options options =
          new DevStack.Options(
              root,
              devConfig,
              dataDir,
              kafka,
              Env.of(System.getenv()).optional("SVC_DATABASE_URL"),
              port,
              meshPort,
              meshInternalPort,
              // SVC_NAMESPACE isolates this stack on a shared cluster (--kafka); the gateway's task
              // topics read it from the same environment (TaskSettings), so both agree
              io.taskmesh.topology.TaskTopics.namespace(Env.of(System.getenv())),
              brokers);
      // Ctrl-C reaches the runtimes and connectors at the same moment: their supervisors must know
      // at once that dev stops, or they restart what just died; while dev starts, it ends the
      // start and stops what had started (the JVM's own INT/TERM handling is replaced)
      DevChildren children = new DevChildren(dataDir);
      DevStack stack = DevStack.unstarted(children::record);
      CountDownLatch stopRequested = StopSignals.install(stack::stopRequested);
      children.stopLeftovers(System.out::println);
      children.watch();
      try {
        stack.launch(options, System.out::println);
      } catch (DevStack.Stopped s) {
        System.out.println("stopping...");
        children.close();
        lock.close();
        System.out.println("stopped");
        return 0;
      } catch (RuntimeException | Error e) {
        // an Error too (a class missing from the classpath): the stack stopped what it started,
        // and dev exits rather than leave threads running that no signal would stop
        children.close();
        lock.close();
        throw new CliFailure(1, "dev could not start: " + describe(e));
      }
      // any other way out (e.g. SIGHUP) still closes the stack, though not in order with Postgres's
      // hook
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    stack.close();
                    children.close();
                  },
                  "dev-stop"));
      String url = stack.gatewayUrl();
      System.out.println("gateway: " + url);
      System.out.println();
      DevHints.tryLines(url, stack.meshGatewayUrl(), devConfig.flows(), System.getenv())
          .forEach(System.out::println);
      System.out.println(
          "Flows: " + String.join(", ", devConfig.flows().keySet()) + ". Ctrl-C stops everything.");
      stopRequested.await();
      System.out.println("stopping...");
      stack.close();
      children.close();
      lock.close();
      System.out.println("stopped");
      return 0;
    }

    /**
     * A failure in our words: a class missing at run time names the class and the fix, anything
     * else its own first line, never the exception class or a trace.
     */
    static String describe(Throwable e) {
      if (e instanceof LinkageError) {
        String missing = e.getMessage() == null ? "a class" : e.getMessage().replace('/', '.');
        return "part of taskmesh is missing from its classpath ("
            + missing
            + "): rebuild it with mvn -pl cli -am package, then start it again";
      }
      return firstLine(e);
    }

    /** A failure's own words, without the exception class or the causes' traces. */
    private static String firstLine(Throwable e) {
      String m = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
      return m.lines().findFirst().orElse(m);
    }
  }

  @Command(
      name = "gateway",
      mixinStandardHelpOptions = true,
      description =
          "Run the gateway from its environment (SVC_GATEWAY_MODE, "
              + "KAFKA_BOOTSTRAP_SERVERS, SVC_CONFIG_PATH, ...).")
  static final class GatewayCmd implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      io.taskmesh.gateway.Main.main(new String[0]);
      return 0;
    }
  }

  @Command(
      name = "sidecar",
      mixinStandardHelpOptions = true,
      description =
          "Run a sidecar (or x-sink / x-sump) from its environment "
              + "(KAFKA_BOOTSTRAP_SERVERS, SVC_ACTOR_NAME, SVC_SOCKET_DIR, SVC_GATEWAY_URL, ...).")
  static final class SidecarCmd implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      io.taskmesh.sidecar.Main.main(new String[0]);
      return 0;
    }
  }

  @Command(
      name = "kv-connector",
      mixinStandardHelpOptions = true,
      description =
          "Run the key-value connector from its environment "
              + "(CONNECTOR_SOCKET, STATE_PROXY_PG_URL, STATE_PROXY_PG_INDEXES).")
  static final class KvConnectorCmd implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      io.taskmesh.kvconnector.Main.main(new String[0]);
      new CountDownLatch(1).await(); // serve until SIGTERM runs the connector's shutdown hook
      return 0;
    }
  }

  @Command(
      name = "mesh-api",
      mixinStandardHelpOptions = true,
      description =
          "Run mesh-api from its environment (CONNECTOR_SOCKET, "
              + "KAFKA_BOOTSTRAP_SERVERS, SVC_MESH_API_PORT, SVC_MESH_API_INTERNAL_PORT, ...).")
  static final class MeshApiCmd implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
      io.taskmesh.meshapi.Main.main(new String[0]);
      new CountDownLatch(1).await(); // serve until SIGTERM runs mesh-api's shutdown hook
      return 0;
    }
  }

  /** {@code --version} / {@code -V}: the project version Maven wrote into the build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties p = new Properties();
      try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          p.load(in);
        }
      }
      return new String[] {"taskmesh " + p.getProperty("version", "(version unknown)")};
    }
  }

  /** The repository root: TASKMESH_HOME (set by ./taskmesh), else the working directory. */
  static Path repoRoot() {
    String home = Env.of(System.getenv()).optional("TASKMESH_HOME");
    Path root = home != null ? Path.of(home) : Path.of("").toAbsolutePath();
    if (!Files.isDirectory(root.resolve("runtime").resolve("taskmesh_runtime"))) {
      throw new IllegalStateException(
          "cannot find runtime/taskmesh_runtime under "
              + root
              + "; run ./taskmesh from the repository");
    }
    return root;
  }
}

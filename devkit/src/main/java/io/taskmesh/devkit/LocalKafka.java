package io.taskmesh.devkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * A real one-node KRaft Kafka broker running as a child JVM ({@code kafka.Kafka}) from the Maven
 * Central artifacts on this JVM's classpath. The log lives under {@code dataDir}, so a restart
 * keeps every topic; a child process (not in-process) so tests can kill -9 it.
 */
public final class LocalKafka implements AutoCloseable {
  private static LocalKafka shared;
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  private final Path dataDir;
  private final int port;
  private final int controllerPort;
  private final ClusterRole role;
  private final java.util.Map<String, String> overrides;
  private boolean ownSession;
  private Process process;

  /**
   * This node's place in a cluster: its id, every controller voter ({@code id@host:port,...}), the
   * cluster id every node formats with, and the replication its internal topics and auto-created
   * topics get.
   */
  record ClusterRole(
      int nodeId, String voters, String clusterId, int replication, int minInsyncReplicas) {}

  private LocalKafka(Path dataDir, int port, int controllerPort, ClusterRole role) {
    this(dataDir, port, controllerPort, role, java.util.Map.of());
  }

  private LocalKafka(
      Path dataDir,
      int port,
      int controllerPort,
      ClusterRole role,
      java.util.Map<String, String> overrides) {
    this.overrides = java.util.Map.copyOf(overrides);
    this.dataDir = dataDir;
    this.port = port;
    this.controllerPort = controllerPort;
    this.role = role;
  }

  /** One broker per JVM, shared by every test of that JVM; stopped by a shutdown hook. */
  public static synchronized LocalKafka shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("taskmesh-kafka"), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      LocalKafka broker = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(broker::close, "local-kafka-stop"));
    }
    return shared;
  }

  /**
   * As {@link #start(Path, int)}, the broker in a session of its own ({@code setsid}), out of reach
   * of the signals a terminal sends to the whole foreground group on Ctrl-C. {@code ./taskmesh dev}
   * stops it itself, last, after every client has closed: a broker that goes at the same moment as
   * its clients makes their clean close fail with ERROR lines. Who starts it this way must make
   * sure it does not outlive them ({@link #close()}, and dev's watchdog for a crash).
   */
  public static LocalKafka startInOwnSession(Path dataDir, int port) {
    return start(dataDir, port, true);
  }

  /** Starts (formatting the storage the first time) a broker on {@code port} (0 = any free). */
  public static LocalKafka start(Path dataDir, int port) {
    return start(dataDir, port, false);
  }

  private static LocalKafka start(Path dataDir, int port, boolean ownSession) {
    int brokerPort = port == 0 ? freePort() : port;
    int controllerPort = freePortOtherThan(brokerPort);
    LocalKafka kafka =
        new LocalKafka(
            dataDir,
            brokerPort,
            controllerPort,
            new ClusterRole(
                1, "1@127.0.0.1:" + controllerPort, Uuid.randomUuid().toString(), 1, 1));
    kafka.ownSession = ownSession && Files.isExecutable(SETSID);
    kafka.startProcess();
    return kafka;
  }

  /**
   * A one-node broker on any free port with broker settings of the test's own (they replace ours,
   * e.g. {@code auto.create.topics.enable=false} for a cluster where clients may not create
   * topics).
   */
  public static LocalKafka startWith(Path dataDir, java.util.Map<String, String> overrides) {
    int brokerPort = freePort();
    int controllerPort = freePortOtherThan(brokerPort);
    LocalKafka kafka =
        new LocalKafka(
            dataDir,
            brokerPort,
            controllerPort,
            new ClusterRole(1, "1@127.0.0.1:" + controllerPort, Uuid.randomUuid().toString(), 1, 1),
            overrides);
    kafka.startProcess();
    return kafka;
  }

  /**
   * One node of a {@link LocalKafkaCluster}, not started: the cluster launches every node before it
   * waits for any, since a controller quorum needs a majority of its voters up to elect a leader.
   */
  static LocalKafka clusterNode(Path dataDir, int port, int controllerPort, ClusterRole role) {
    return new LocalKafka(dataDir, port, controllerPort, role);
  }

  int controllerPort() {
    return controllerPort;
  }

  public String bootstrapServers() {
    return "127.0.0.1:" + port;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** Simulates a crash: SIGKILL, no clean shutdown. */
  public synchronized void kill() {
    if (process != null) {
      process.destroyForcibly();
      waitFor(process);
      process = null;
    }
  }

  /** Starts the broker again on the same port and log directory. */
  public synchronized void restart() {
    kill();
    startProcess();
  }

  @Override
  public synchronized void close() {
    if (process != null) {
      process.destroy();
      try {
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          waitFor(process);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        process.destroyForcibly();
      }
      process = null;
    }
  }

  /**
   * Starts the process and waits for it; a broker that is not ready in time is killed before the
   * failure is thrown, so that a failed start leaves no broker running on its own (it would hold
   * the log directory against the next start).
   */
  private synchronized void startProcess() {
    launch();
    try {
      awaitReady(readyTimeout(Duration.ofSeconds(90)));
    } catch (RuntimeException e) {
      kill();
      throw e;
    }
  }

  /**
   * {@code TASKMESH_KAFKA_READY_TIMEOUT} (e.g. {@code 3m}, {@code 500ms}) replaces the default wait
   * for a starting broker: longer on a slow machine, tiny to test what a failed start leaves.
   */
  static Duration readyTimeout(Duration fallback) {
    String v = System.getenv("TASKMESH_KAFKA_READY_TIMEOUT");
    if (v == null || v.isBlank()) {
      return fallback;
    }
    Matcher m = Pattern.compile("(\\d+)(ms|s|m)").matcher(v.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "TASKMESH_KAFKA_READY_TIMEOUT must look like 500ms, 90s or 3m, was '" + v + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      default -> Duration.ofMinutes(n);
    };
  }

  /** Formats the storage the first time and starts the process, without waiting for it. */
  synchronized void launch() {
    try {
      Files.createDirectories(dataDir);
      Path props = writeServerProperties();
      List<String> main = new ArrayList<>(List.of(KafkaNodeMain.class.getName()));
      if (!Files.exists(dataDir.resolve("logs").resolve("meta.properties"))) {
        // the first start formats the storage in the broker's own JVM (KafkaNodeMain)
        main.addAll(List.of("--format", role.clusterId()));
      }
      main.add(props.toString());
      process = runJava(main, dataDir.resolve("broker.log"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path writeServerProperties() throws IOException {
    String props =
        String.join(
            "\n",
            "process.roles=broker,controller",
            "node.id=" + role.nodeId(),
            "controller.quorum.voters=" + role.voters(),
            "listeners=PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort,
            "advertised.listeners=PLAINTEXT://127.0.0.1:" + port,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=" + dataDir.resolve("logs"),
            "num.partitions=1",
            // internal topics must not ask for more replicas than there are brokers, or groups and
            // transactions hang (one broker: 1); auto-created topics get the same
            "offsets.topic.replication.factor=" + role.replication(),
            "offsets.topic.num.partitions=4",
            "transaction.state.log.replication.factor=" + role.replication(),
            "transaction.state.log.min.isr=" + role.minInsyncReplicas(),
            "transaction.state.log.num.partitions=4",
            "share.coordinator.state.topic.replication.factor=" + role.replication(),
            "share.coordinator.state.topic.min.isr=" + role.minInsyncReplicas(),
            "default.replication.factor=" + role.replication(),
            "min.insync.replicas=" + role.minInsyncReplicas(),
            "group.initial.rebalance.delay.ms=0",
            "group.coordinator.append.linger.ms=0",
            "auto.create.topics.enable=true",
            // a killed node is fenced and its partitions get new leaders after 4 s instead of 9 s
            "broker.session.timeout.ms=4000",
            "broker.heartbeat.interval.ms=1000",
            // an idle controller appends a no-op record to the metadata log at this interval, only
            // so that observers see the log advance (default 500 ms); nothing of ours waits on it
            "metadata.max.idle.interval.ms=10000",
            // the log cleaner allocates its key buffer whole on the heap at start, 128 MiB by
            // default (sized for compacted topics of many millions of keys): a third of the
            // broker's resident memory in a dev stack. 16 MiB maps about 700,000 keys per pass; a
            // topic with more is cleaned in several passes
            "log.cleaner.dedupe.buffer.size=16777216",
            // request handling sized for a local node, not a server room: Kafka's defaults (8 I/O
            // and 3 network threads, for the broker's listener and the controller's alike) are 24
            // threads that each wake every 300 ms with nothing to do, a quarter of an idle dev
            // stack's CPU; every request handler is asynchronous (purgatories, the coordinators'
            // own threads), so two of them keep two cores busy
            "num.io.threads=2",
            "num.network.threads=1",
            // a test's own settings: a later line wins when the file is read
            overrides.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(java.util.stream.Collectors.joining("\n")),
            "");
    Path file = dataDir.resolve("server.properties");
    Files.writeString(file, props);
    return file;
  }

  private Process runJava(List<String> mainAndArgs, Path log) throws IOException {
    boolean alone = !role.voters().contains(",");
    List<String> cmd = new ArrayList<>();
    if (ownSession) {
      // not a group leader (a fresh child of this JVM), so setsid execs in place: same pid
      cmd.add(SETSID.toString());
    }
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // TASKMESH_KAFKA_JVM_OPTS replaces the defaults (small heap, serial GC: light for tests);
    // benchmarks that care about tail latency can give the broker e.g. "-Xms1g -Xmx1g -XX:+UseG1GC"
    String opts = System.getenv("TASKMESH_KAFKA_JVM_OPTS");
    if (opts != null && !opts.isBlank()) {
      cmd.addAll(List.of(opts.trim().split("\\s+")));
    } else {
      cmd.add("-Xms128m");
      // several brokers share one machine: a smaller heap each
      cmd.add(alone ? "-Xmx768m" : "-Xmx384m");
      cmd.add("-XX:+UseSerialGC");
      // native memory the JIT and the network freed goes back to the system every 10 s (figures:
      // docs/bench/peer.md)
      cmd.add("-XX:TrimNativeHeapInterval=10000");
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.addAll(mainAndArgs);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    return pb.start();
  }

  void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Admin admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "kafka broker exited with "
                  + process.exitValue()
                  + ", see "
                  + dataDir.resolve("broker.log"));
        }
        try {
          // an attempt never outlasts the wait: a broker that answers after the deadline is late
          long leftNanos = Math.max(1, deadline - System.nanoTime());
          admin
              .describeCluster()
              .nodes()
              .get(Math.min(TimeUnit.SECONDS.toNanos(3), leftNanos), TimeUnit.NANOSECONDS);
          return;
        } catch (Exception notYet) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "kafka broker not ready in " + timeout + ", see " + dataDir.resolve("broker.log"),
                notYet);
          }
        }
      }
    }
  }

  private static int waitFor(Process p) {
    try {
      return p.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /**
   * The controller's port. Two calls of {@link #freePort()} in a row can return the same port (the
   * first socket is closed again at once), and the broker then refuses to format its storage: "two
   * listeners on the same port" (seen once in CI).
   */
  static int freePortOtherThan(int taken) {
    int p = freePort();
    while (p == taken) {
      p = freePort();
    }
    return p;
  }

  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

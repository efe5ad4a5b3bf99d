package io.taskmesh.cli;

import io.taskmesh.devkit.Closing;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.devkit.LocalKafkaCluster;
import io.taskmesh.devkit.LocalPostgres;
import io.taskmesh.gateway.Gateway;
import io.taskmesh.gateway.GatewayConfig;
import io.taskmesh.gateway.TaskSettings;
import io.taskmesh.kvconnector.KvApp;
import io.taskmesh.kvconnector.KvConfig;
import io.taskmesh.kvconnector.KvStore;
import io.taskmesh.meshapi.ConnectorClient;
import io.taskmesh.meshapi.EventBus;
import io.taskmesh.meshapi.MeshApiApp;
import io.taskmesh.meshapi.MeshConfig;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.sidecar.CrewConfig;
import io.taskmesh.sidecar.ExitHook;
import io.taskmesh.sidecar.GatewayReporter;
import io.taskmesh.sidecar.PauseActor;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import io.taskmesh.sidecar.Sidecar;
import io.taskmesh.sidecar.SidecarConfig;
import io.taskmesh.sidecar.SinkActor;
import io.taskmesh.sidecar.SumpActor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Everything {@code ./taskmesh dev} runs, in one process plus children: a Kafka broker (child JVM),
 * Postgres (embedded, or {@code SVC_DATABASE_URL}), the gateway in testing mode, and per actor a
 * Python runtime (child process) with its sidecar, plus x-sink and x-sump.
 */
public final class DevStack implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DevStack.class);

  /**
   * Plans a local stack in {@code dataDir}, over existing services where they are named.
   *
   * @param kafkaBootstrap an existing broker, or null to start one under {@code dataDir/kafka}
   * @param databaseUrl an existing Postgres (JDBC URL), or null to start one under {@code
   *     dataDir/postgres}
   * @param brokers how many brokers to start (or, with {@code kafkaBootstrap}, how many that
   *     cluster has): topics get replication factor min(brokers, 3) and a majority of in-sync
   *     replicas
   */
  public record Options(
      Path repoRoot,
      DevConfig config,
      Path dataDir,
      String kafkaBootstrap,
      String databaseUrl,
      int gatewayPort,
      int meshApiPort,
      int meshApiInternalPort,
      String namespace,
      int brokers) {
    public Options {
      if (brokers < 1) {
        throw new IllegalArgumentException("brokers must be at least 1, was " + brokers);
      }
    }

    /** One broker. */
    public Options(
        Path repoRoot,
        DevConfig config,
        Path dataDir,
        String kafkaBootstrap,
        String databaseUrl,
        int gatewayPort,
        int meshApiPort,
        int meshApiInternalPort,
        String namespace) {
      this(
          repoRoot,
          config,
          dataDir,
          kafkaBootstrap,
          databaseUrl,
          gatewayPort,
          meshApiPort,
          meshApiInternalPort,
          namespace,
          1);
    }

    String replicationFactor() {
      return Integer.toString(LocalKafkaCluster.replicationFactorFor(brokers));
    }
  }

  private final Deque<AutoCloseable> started = new ArrayDeque<>();

  /** Set by the first stop request: a start in progress ends at its next step. */
  private volatile boolean stopping;

  /** Guards {@link #starter}. */
  private final Object starting = new Object();

  /**
   * The thread running the start while it is in a step that may be interrupted, else null: a stop
   * request interrupts its waits (broker, Postgres, task view, runtimes) rather than wait them out.
   */
  private Thread starter;

  private final Map<String, SupervisedActor> actors = new ConcurrentHashMap<>();
  private String gatewayUrl;

  /**
   * Where sidecars and crew actors report: the mesh deployment, or the one testing-mode gateway.
   */
  private String meshGatewayUrl;

  private String meshApiUrl;
  private String namespace;
  private String kafkaBootstrap;
  private String meshApiInternalUrl;
  private DevStateProxy stateProxy;
  private LocalKafkaCluster kafkaCluster;

  /** Called after each child process starts, so that {@link DevChildren} records it at once. */
  private final Runnable childStarted;

  /** The actors' sidecars and runtimes, closed in parallel (see {@link ParallelClose}). */
  private final ParallelClose actorGroup = new ParallelClose("actors");

  private DevStack(Runnable childStarted) {
    this.childStarted = childStarted;
  }

  public static DevStack start(Options o, Consumer<String> say) {
    return start(o, System.getenv(), say, () -> {});
  }

  /** As above; {@code childStarted} runs after each child process started. */
  static DevStack start(Options o, Consumer<String> say, Runnable childStarted) {
    return start(o, System.getenv(), say, childStarted);
  }

  /**
   * With {@code authEnv} in place of the process environment as the source of the client auth
   * variables ({@code SVC_MCP_*}, {@code SVC_A2A_*}, {@code SVC_INTERNAL_TOKEN}): how a test runs a
   * stack whose gateway wants a token.
   */
  static DevStack start(Options o, Map<String, String> authEnv, Consumer<String> say) {
    return start(o, authEnv, say, () -> {});
  }

  private static DevStack start(
      Options o, Map<String, String> authEnv, Consumer<String> say, Runnable childStarted) {
    DevStack stack = new DevStack(childStarted);
    stack.run(o, authEnv, say);
    return stack;
  }

  /**
   * A stack not started yet, for dev's own main: a stop asked for while {@link #launch(Options,
   * Consumer)} runs ({@link #stopRequested()}, from the INT/TERM handler) ends the start.
   */
  static DevStack unstarted(Runnable childStarted) {
    return new DevStack(childStarted);
  }

  /**
   * Starts everything in order. A start that fails in any way (an {@link Error} too, such as a
   * class missing from the classpath) or that a stop request ends stops what it had started before
   * it throws: nothing is left running, and nothing keeps the JVM alive.
   *
   * @throws Stopped when {@link #stopRequested()} ended the start
   */
  void launch(Options o, Consumer<String> say) {
    run(o, System.getenv(), say);
  }

  /** A start ended by a stop request (Ctrl-C or TERM while dev starts); all of it is stopped. */
  static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stopped() {
      super("stopped while starting", null, false, false);
    }
  }

  private void run(Options o, Map<String, String> authEnv, Consumer<String> say) {
    namespace = o.namespace();
    try {
      startAll(o, authEnv, say);
    } catch (RuntimeException | Error e) {
      Thread.interrupted(); // an interrupt of a stop request must not cut the close short
      // read before close(), which marks the stack as stopping itself
      boolean stopAsked = stopping;
      close();
      if (stopAsked && !(e instanceof Error)) {
        throw new Stopped();
      }
      throw e;
    }
  }

  /**
   * A step of the start that waits for something (the broker, Postgres, the task view, a runtime)
   * and gives up cleanly when interrupted: a stop request interrupts it rather than wait it out.
   * Other steps (the HTTP servers' own start) are not interrupted, as their libraries log traces
   * when they are; a stop request ends the start after them.
   */
  private <T> T interruptible(Supplier<T> step) {
    synchronized (starting) {
      checkStopping();
      starter = Thread.currentThread();
    }
    try {
      return step.get();
    } finally {
      synchronized (starting) {
        starter = null;
      }
      if (stopping) {
        Thread.interrupted(); // the start ends at its next step, without an interrupt pending
      }
    }
  }

  /** Pushes what just started; once a stop was asked for, the start ends here. */
  private void keep(AutoCloseable c) {
    started.push(c);
    checkStopping();
  }

  private void checkStopping() {
    if (stopping) {
      throw new Stopped();
    }
  }

  public String gatewayUrl() {
    return gatewayUrl;
  }

  /**
   * The gateway that serves the mesh routes: the mesh deployment, or the one testing-mode gateway.
   */
  public String meshGatewayUrl() {
    return meshGatewayUrl;
  }

  /** mesh-api's external base URL (create/list/get/cancel/SSE under {@code /api/v1/mesh/}). */
  public String meshApiUrl() {
    return meshApiUrl;
  }

  public String meshApiInternalUrl() {
    return meshApiInternalUrl;
  }

  /** The Kafka bootstrap servers the stack uses (package-private: for tests). */
  String kafkaBootstrap() {
    return kafkaBootstrap;
  }

  /** The stack's namespace ({@code SVC_NAMESPACE}; package-private: for tests). */
  String namespace() {
    return namespace;
  }

  /**
   * The brokers dev started with {@code --brokers} above 1, else null (package-private: for tests).
   */
  LocalKafkaCluster kafkaCluster() {
    return kafkaCluster;
  }

  /**
   * Stops an actor's sidecar and runtime and starts both again, as a pod restart does
   * (package-private: for tests that restart an actor while its envelopes are in flight).
   */
  void restartActor(String name) {
    SupervisedActor actor = actors.get(name);
    if (actor == null) {
      throw new IllegalArgumentException("no actor named " + name);
    }
    actor.restart();
  }

  /** The state-proxy connectors and the local S3 server (package-private: for tests). */
  DevStateProxy stateProxy() {
    return stateProxy;
  }

  private void startAll(Options o, Map<String, String> authEnv, Consumer<String> say) {
    // Postgres starts beside the broker: neither needs the other, and each mostly waits
    CompletableFuture<LocalPostgres> postgres =
        o.databaseUrl() == null
            ? CompletableFuture.supplyAsync(
                () ->
                    LocalPostgres.start(o.dataDir().resolve("postgres"), 0, LocalPostgres.ONE_USER),
                r -> Threads.startDaemon("postgres-start", r))
            : null;
    String bootstrap;
    try {
      bootstrap = startKafka(o, say);
    } catch (RuntimeException | Error e) {
      // not kept yet: a Postgres that started meanwhile would outlive the failed start
      if (postgres != null) {
        postgres.handle((pg, failed) -> pg).thenAccept(Closing::closeAll).join();
      }
      throw e;
    }
    String databaseUrl = o.databaseUrl();
    if (postgres != null) {
      LocalPostgres pg = interruptible(() -> Threads.joined(postgres));
      keep(pg);
      childStarted.run();
      databaseUrl = pg.jdbcUrl();
    }
    say.accept("postgres: " + MaskedUrl.of(databaseUrl));

    Map<String, String> env = new HashMap<>();
    env.put("SVC_GATEWAY_MODE", "testing");
    env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    env.put("SVC_HOST", "127.0.0.1");
    env.put("SVC_PORT", Integer.toString(o.gatewayPort()));
    env.put("SVC_NAMESPACE", o.namespace());
    env.put("SVC_CONFIG_PATH", o.config().flowsFile().toString());
    env.put("SVC_STATE_DIR", o.dataDir().resolve("gateway-state").toString());
    env.put("SVC_DATABASE_URL", databaseUrl);
    env.put("SVC_TOPIC_REPLICATION_FACTOR", o.replicationFactor());
    passAuthThrough(authEnv, env, o, say);
    // mesh-api first: the gateway's dashboard shows its envelopes (Envelopes panel)
    startMeshApi(o, bootstrap, databaseUrl);
    env.put("SVC_UI_MESH_API_URL", meshApiUrl + "/api/v1");
    // replay-eval's reports (./taskmesh replay-eval --data, the same folder) on /ui/#evals/<id>
    env.put("SVC_UI_EVALS_DIR", o.dataDir().resolve("evals").toString());
    if ("api".equalsIgnoreCase(System.getenv().getOrDefault("SVC_GATEWAY_MODE", "").trim())) {
      startApiAndMesh(env, say);
    } else {
      // the task topics from the same map as the rest (namespace, port), like the api path
      Gateway gateway =
          interruptible(
              () ->
                  Gateway.start(
                      GatewayConfig.fromEnv(env), TaskSettings.fromEnv(withProcessEnv(env))));
      keep(gateway);
      gatewayUrl = "http://127.0.0.1:" + gateway.port();
      meshGatewayUrl = gatewayUrl;
    }

    say.accept("mesh-api: " + meshApiUrl);
    say.accept("mesh-api-internal: " + meshApiInternalUrl);

    GatewayReporter reporter = new GatewayReporter(meshGatewayUrl);
    keep(reporter);
    ParallelClose crewGroup = new ParallelClose("crew actors");
    keep(crewGroup);
    stateProxy = new DevStateProxy(o.dataDir(), say, childStarted);
    keep(stateProxy);
    keep(actorGroup);
    startActors(o, bootstrap, reporter, crewStarts(o, bootstrap, reporter, crewGroup), say);
  }

  /**
   * The crew actors' starts: x-sink (final report, hooks from SVC_SINK_HOOKS), x-sump, x-pause
   * (park + resume). Each mostly waits on the broker (its topics, x-pause's read of what is
   * parked), so they run beside the declared actors' starts; each joins {@code crewGroup} once
   * started.
   */
  private List<Callable<String>> crewStarts(
      Options o, String bootstrap, GatewayReporter reporter, ParallelClose crewGroup) {
    CrewConfig crew = CrewConfig.fromEnv(System.getenv());
    ExitHook logOnly = status -> LOG.error("a crew actor asked to exit {}", status);
    Function<String, SidecarConfig> config =
        topic -> SidecarConfig.fromEnv(actorEnv(bootstrap, o, topic, o.dataDir(), Map.of()));
    return List.of(
        () -> {
          SinkActor sink = new SinkActor(config.apply(Topics.SINK), crew, reporter, logOnly);
          sink.start();
          crewGroup.add(sink);
          return Topics.SINK;
        },
        () -> {
          SumpActor sump = new SumpActor(config.apply(Topics.SUMP), reporter, logOnly);
          sump.start();
          crewGroup.add(sump);
          return Topics.SUMP;
        },
        () -> {
          PauseActor pause = new PauseActor(config.apply(Topics.PAUSE), crew, reporter, logOnly);
          pause.start();
          crewGroup.add(pause);
          return Topics.PAUSE;
        });
  }

  /** The broker (or brokers) dev starts, unless it was given {@code --kafka}; its bootstrap. */
  private String startKafka(Options o, Consumer<String> say) {
    String bootstrap = o.kafkaBootstrap();
    if (bootstrap == null && o.brokers() > 1) {
      say.accept(
          "kafka: starting "
              + o.brokers()
              + " KRaft brokers (logs in "
              + o.dataDir().resolve("kafka")
              + ")");
      kafkaCluster =
          interruptible(() -> LocalKafkaCluster.start(o.dataDir().resolve("kafka"), o.brokers()));
      keep(kafkaCluster);
      childStarted.run();
      bootstrap = kafkaCluster.bootstrapServers();
    } else if (bootstrap == null) {
      say.accept("kafka: starting a KRaft broker (log in " + o.dataDir().resolve("kafka") + ")");
      LocalKafka kafka =
          interruptible(() -> LocalKafka.startInOwnSession(o.dataDir().resolve("kafka"), 0));
      keep(kafka);
      childStarted.run();
      bootstrap = kafka.bootstrapServers();
    }
    kafkaBootstrap = bootstrap;
    say.accept("kafka: " + bootstrap + " (topic replication factor " + o.replicationFactor() + ")");
    return bootstrap;
  }

  /** How many actors start at once: their runtimes' imports and sidecars' joins overlap. */
  private static final int ACTOR_STARTS = 4;

  /**
   * Starts every declared actor, {@link #ACTOR_STARTS} at a time: each waits mostly on its
   * runtime's interpreter and its consumer's group join, so in a row they cost the sum and side by
   * side about the longest. The crew's starts run beside them, each on a thread of its own. The
   * lines are said in the declared order. The first failure stops the starts still running (an
   * actor that started is closed with the stack); a stop request interrupts them all.
   */
  private void startActors(
      Options o,
      String bootstrap,
      GatewayReporter reporter,
      List<Callable<String>> crew,
      Consumer<String> say) {
    List<ActorSpec> declared = o.config().actors();
    // the crew's starts wait on the broker, not on a CPU: threads of their own beside the pool's
    ExecutorService starts =
        Threads.fixedPool(
            "actor-start", crew.size() + Math.max(1, Math.min(ACTOR_STARTS, declared.size())));
    List<Future<String>> crewStarted = new ArrayList<>();
    List<Future<ActorSpec>> started = new ArrayList<>();
    try {
      crew.forEach(c -> crewStarted.add(starts.submit(c)));
      for (ActorSpec d : declared) {
        started.add(starts.submit(() -> startActor(o, bootstrap, reporter, d)));
      }
      for (Future<String> f : crewStarted) {
        interruptible(() -> awaitStart(f));
        checkStopping();
      }
      for (Future<ActorSpec> f : started) {
        ActorSpec spec = interruptible(() -> awaitStart(f));
        checkStopping();
        say.accept("actor " + spec.name() + ": " + spec.handler() + " (" + spec.dir() + ")");
      }
    } finally {
      // after a failure or a stop: the starts still running are interrupted and waited for, so
      // each actor is either in the closing group or stopped by its own failed start
      starts.shutdownNow();
      awaitQuietly(starts);
    }
  }

  private ActorSpec startActor(
      Options o, String bootstrap, GatewayReporter reporter, ActorSpec declared) {
    ActorSpec spec = declared.withEnv(stateProxy.startMounts(declared));
    Path socketDir = o.dataDir().resolve("sockets").resolve(spec.name());
    SidecarConfig sidecarConfig =
        SidecarConfig.fromEnv(actorEnv(bootstrap, o, spec.name(), socketDir, spec.env()));
    SupervisedActor actor =
        new SupervisedActor(o, spec, socketDir, sidecarConfig, reporter, childStarted);
    actors.put(spec.name(), actor);
    actorGroup.add(actor);
    childStarted.run();
    return spec;
  }

  /** The actor's start as its own failure: the cause, not the executor's wrapper. */
  private static <T> T awaitStart(Future<T> start) {
    try {
      return start.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while actors start", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  private static void awaitQuietly(ExecutorService pool) {
    boolean interrupted = Thread.interrupted();
    try {
      // a runtime's start gives up within its own timeout; an interrupted one at once
      pool.awaitTermination(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      interrupted = true;
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * As a real installation runs it ({@code SVC_GATEWAY_MODE=api}): an api deployment for clients
   * and a mesh deployment (a free port) for sidecars and crew actors, one task view group over the
   * same topics and one database. Tasks are queried across the two through the internal routes, so
   * both share an {@code SVC_INTERNAL_TOKEN} (generated when not given).
   */
  private void startApiAndMesh(Map<String, String> env, Consumer<String> say) {
    if (env.getOrDefault("SVC_INTERNAL_TOKEN", "").isBlank()) {
      byte[] b = new byte[24];
      new SecureRandom().nextBytes(b);
      env.put("SVC_INTERNAL_TOKEN", HexFormat.of().formatHex(b));
    }
    Map<String, String> meshEnv = new HashMap<>(env);
    meshEnv.put("SVC_GATEWAY_MODE", "mesh");
    meshEnv.put("SVC_PORT", Integer.toString(LocalPorts.freePort()));
    meshEnv.put("SVC_STATE_DIR", env.get("SVC_STATE_DIR") + "-mesh");
    // each advertises its own port for forwarded task queries (the process env names neither)
    Gateway mesh =
        interruptible(
            () ->
                Gateway.start(
                    GatewayConfig.fromEnv(meshEnv), TaskSettings.fromEnv(withProcessEnv(meshEnv))));
    keep(mesh);
    meshGatewayUrl = "http://127.0.0.1:" + mesh.port();
    env.put("SVC_GATEWAY_MODE", "api");
    env.put("SVC_MESH_URL", meshGatewayUrl);
    Gateway api =
        interruptible(
            () ->
                Gateway.start(
                    GatewayConfig.fromEnv(env), TaskSettings.fromEnv(withProcessEnv(env))));
    keep(api);
    gatewayUrl = "http://127.0.0.1:" + api.port();
    say.accept("gateway (api deployment): " + gatewayUrl);
    say.accept("gateway (mesh deployment, for sidecars): " + meshGatewayUrl);
  }

  /**
   * Task settings a developer exported (topics, keepalive) under the deployment's own host and
   * port.
   */
  private static Map<String, String> withProcessEnv(Map<String, String> env) {
    Map<String, String> all = new HashMap<>(System.getenv());
    all.putAll(env);
    return all;
  }

  /**
   * The gateway's client auth settings from dev's own environment ({@code SVC_MCP_*}, {@code
   * SVC_A2A_*}, {@code SVC_INTERNAL_TOKEN}). With {@code SVC_MCP_OAUTH_ENABLED=true} the embedded
   * Postgres stores the OAuth data, and what a developer did not set is filled in for local use
   * only: the issuer is the gateway's loopback URL, and the signing secret is generated once and
   * kept under the data directory, so a dev restart keeps tokens valid.
   */
  static void passAuthThrough(
      Map<String, String> from, Map<String, String> env, Options o, Consumer<String> say) {
    from.forEach(
        (k, v) -> {
          if (k.startsWith("SVC_MCP_")
              || k.startsWith("SVC_A2A_")
              || k.equals("SVC_INTERNAL_TOKEN")) {
            env.put(k, v);
          }
        });
    if (!"true".equalsIgnoreCase(env.getOrDefault("SVC_MCP_OAUTH_ENABLED", "").trim())) {
      return;
    }
    if (env.getOrDefault("SVC_MCP_OAUTH_ISSUER", "").isBlank()) {
      int port = o.gatewayPort() == 0 ? LocalPorts.freePort() : o.gatewayPort();
      env.put("SVC_PORT", Integer.toString(port));
      env.put("SVC_MCP_OAUTH_ISSUER", "http://127.0.0.1:" + port);
    }
    if (env.getOrDefault("SVC_MCP_OAUTH_SECRET", "").isBlank()) {
      env.put("SVC_MCP_OAUTH_SECRET", devSecret(o.dataDir().resolve("oauth-dev-secret")));
      say.accept("oauth: dev signing secret in " + o.dataDir().resolve("oauth-dev-secret"));
    }
    say.accept(
        "oauth: issuer "
            + env.get("SVC_MCP_OAUTH_ISSUER")
            + ", clients and tokens in the dev Postgres");
  }

  private static String devSecret(Path file) {
    try {
      if (Files.isRegularFile(file)) {
        return Files.readString(file).trim();
      }
      byte[] b = new byte[32];
      new SecureRandom().nextBytes(b);
      String secret = HexFormat.of().formatHex(b);
      Files.createDirectories(file.getParent());
      Files.writeString(file, secret);
      return secret;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The kv-connector on a Unix socket over the same Postgres, and mesh-api in front of it. */
  private void startMeshApi(Options o, String bootstrap, String databaseUrl) {
    Path socket = o.dataDir().resolve("kv").resolve("kv.sock");
    try {
      Files.createDirectories(socket.getParent());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    KvConfig kvConfig =
        KvConfig.fromEnv(
            Map.of(
                "CONNECTOR_SOCKET",
                socket.toString(),
                "STATE_PROXY_PG_URL",
                databaseUrl,
                "STATE_PROXY_PG_INDEXES",
                "status,(deadline_at)::timestamptz",
                StartupRetry.VAR,
                System.getenv().getOrDefault(StartupRetry.VAR, StartupRetry.DEFAULT)));
    KvStore store = new KvStore(kvConfig);
    keep(store);
    try {
      // a Postgres that restarts (or still starts) is waited for, up to SVC_STARTUP_RETRY_TIMEOUT
      synchronized (starting) {
        starter = Thread.currentThread();
      }
      store.ensureSchema(KvStore.startupRetry(kvConfig.startupRetryTimeout()));
    } catch (StartupRetry.GaveUp e) {
      throw new IllegalStateException(
          "kv-connector: cannot create its table: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      throw new IllegalStateException("kv-connector: interrupted while waiting for Postgres", e);
    } finally {
      synchronized (starting) {
        starter = null;
      }
    }
    checkStopping();
    keep(new KvApp(kvConfig, store).start());
    Map<String, String> env = new HashMap<>();
    env.put("CONNECTOR_SOCKET", socket.toString());
    env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    env.put("SVC_NAMESPACE", o.namespace());
    env.put("SVC_MESH_API_BIND_HOST", "127.0.0.1");
    env.put("SVC_MESH_API_PORT", Integer.toString(o.meshApiPort()));
    env.put("SVC_MESH_API_INTERNAL_PORT", Integer.toString(o.meshApiInternalPort()));
    env.put("SVC_MESH_API_EVENTS_REPLICATION", o.replicationFactor());
    MeshConfig meshConfig = MeshConfig.fromEnv(env);
    ConnectorClient kv = new ConnectorClient(meshConfig.connectorSocket());
    keep(kv);
    EventBus bus = new EventBus(meshConfig);
    keep(bus);
    MeshApiApp app = new MeshApiApp(meshConfig, kv, bus).start();
    keep(app);
    meshApiUrl = "http://127.0.0.1:" + app.externalPort();
    meshApiInternalUrl = "http://127.0.0.1:" + app.internalPort();
  }

  private Map<String, String> actorEnv(
      String bootstrap, Options o, String actor, Path socketDir, Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
    env.put("SVC_ACTOR_NAME", actor);
    env.put("SVC_NAMESPACE", o.namespace());
    env.put("SVC_SOCKET_DIR", socketDir.toString());
    env.put("SVC_GATEWAY_URL", meshGatewayUrl);
    env.put("SVC_TOPIC_REPLICATION_FACTOR", o.replicationFactor());
    env.putAll(extra);
    return env;
  }

  /**
   * From the moment a stop is asked for, nothing is restarted: on Ctrl-C the terminal signals every
   * process of the group, so runtimes and connectors die at once, and their supervisors must not
   * bring them back while dev stops. Called from the signal handler, before {@link #close()}.
   */
  void stopRequested() {
    stopping = true;
    synchronized (starting) {
      if (starter != null) {
        starter.interrupt();
      }
    }
    actors.values().forEach(SupervisedActor::refuseRestarts);
    DevStateProxy proxy = stateProxy;
    if (proxy != null) {
      proxy.refuseRestarts();
    }
  }

  /**
   * Stops what started, newest first (the actors all at once); a second call (the dev-stop hook
   * after an orderly stop) does nothing.
   */
  @Override
  public synchronized void close() {
    stopRequested();
    while (!started.isEmpty()) {
      AutoCloseable c = started.pop();
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
      }
    }
  }

  /**
   * A runtime process and its sidecar. When the sidecar asks to exit (a runtime call timed out),
   * both are restarted, as an orchestrator restarts the pod.
   */
  private static final class SupervisedActor implements AutoCloseable {
    private static final Duration RUNTIME_RESTART_DELAY = Duration.ofMillis(500);

    private final Options o;
    private final ActorSpec spec;
    private final Path socketDir;
    private final SidecarConfig config;
    private final GatewayReporter reporter;

    /** Records each runtime started, a restarted one too ({@link DevChildren#record()}). */
    private final Runnable childStarted;

    private RuntimeProcess runtime;
    private RuntimeClient client;
    private Sidecar sidecar;
    private volatile boolean closed;

    SupervisedActor(
        Options o,
        ActorSpec spec,
        Path socketDir,
        SidecarConfig config,
        GatewayReporter reporter,
        Runnable childStarted) {
      this.o = o;
      this.spec = spec;
      this.socketDir = socketDir;
      this.config = config;
      this.reporter = reporter;
      this.childStarted = childStarted;
      try {
        startBoth();
      } catch (RuntimeException | Error e) {
        // not in the stack's list yet: a runtime started before the failure would outlive dev
        stopStarted();
        throw e;
      }
    }

    private synchronized void stopStarted() {
      closed = true;
      if (sidecar != null) {
        sidecar.close();
      }
      if (client != null) {
        client.close();
      }
      if (runtime != null) {
        runtime.close();
        runtime = null;
      }
    }

    private synchronized void startBoth() {
      sidecar = null;
      startRuntime();
      client = new RuntimeClient(config.socketPath());
      sidecar =
          new Sidecar(config, client, reporter, status -> restartLater(), Duration.ofSeconds(60));
      sidecar.start();
    }

    /** Not synchronized: a restart in progress holds the lock while its runtime starts. */
    void refuseRestarts() {
      closed = true;
    }

    private void startRuntime() {
      RuntimeProcess started =
          RuntimeProcess.startReady(
              o.repoRoot().resolve("runtime"),
              spec.dir(),
              spec.handler(),
              socketDir,
              spec.env(),
              Duration.ofSeconds(60));
      runtime = started;
      childStarted.run();
      ProcessHandle.of(started.pid())
          .ifPresent(h -> h.onExit().thenRun(() -> runtimeExited(started)));
    }

    /**
     * A runtime that died on its own (a handler that called {@code os._exit}, a crash of the
     * interpreter) is started again at once, as an orchestrator restarts a pod's container: the
     * sidecar waits for it and calls again, and an envelope that crashed it {@code
     * SVC_MAX_DELIVERIES} times fails {@code RuntimeCrashed} (spec). Without this the sidecar
     * waited out its actor timeout (5 min) and tasks failed at their deadline instead.
     */
    private void runtimeExited(RuntimeProcess exited) {
      Threads.startDaemon(
          "restart-runtime-" + spec.name(),
          () -> {
            // Ctrl-C signals dev and its runtimes at once, and a runtime may be seen gone before
            // dev's own handler said that dev stops: give it that moment, then look again
            try {
              Thread.sleep(RUNTIME_RESTART_DELAY.toMillis());
            } catch (InterruptedException e) {
              return;
            }
            synchronized (this) {
              // a runtime stopped on purpose is no longer the current one (see stopBoth)
              if (closed || exited != runtime) {
                return;
              }
              LOG.warn("actor {}: its runtime exited; starting it again", spec.name());
              try {
                startRuntime();
              } catch (RuntimeException e) {
                // the new runtime can die before it is ready (the envelope that crashed the last
                // one is called again at once): try again, as an orchestrator would, rather than
                // leave the actor without a runtime until its sidecar times out
                LOG.warn(
                    "actor {}: runtime could not be restarted ({}); trying again",
                    spec.name(),
                    e.getMessage().lines().findFirst().orElse(""));
                runtimeExited(exited);
              }
            }
          });
    }

    private void restartLater() {
      Threads.startDaemon(
          "restart-" + spec.name(),
          () -> {
            synchronized (this) {
              if (closed) {
                return;
              }
              LOG.warn(
                  "actor {}: sidecar exited after a runtime timeout; restarting it and its runtime",
                  spec.name());
              stopBoth();
              startBoth();
            }
          });
    }

    synchronized void restart() {
      if (!closed) {
        stopBoth();
        startBoth();
      }
    }

    private void stopBoth() {
      sidecar.close();
      client.close();
      RuntimeProcess stopping = runtime;
      runtime = null;
      stopping.close();
    }

    @Override
    public synchronized void close() {
      closed = true;
      if (sidecar != null) {
        stopBoth();
      }
    }

    @Override
    public String toString() {
      return "actor " + spec.name();
    }
  }
}

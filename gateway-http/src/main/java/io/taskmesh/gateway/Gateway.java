package io.taskmesh.gateway;

import io.taskmesh.gateway.a2a.push.KafkaPushConfigs;
import io.taskmesh.gateway.a2a.push.PushConfigStore;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.launch.EnvelopeDispatcher;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.gateway.launch.TaskLauncher;
import io.taskmesh.gateway.oauth.OAuth;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.TopicCreator;
import io.taskmesh.topology.TaskView;
import io.taskmesh.topology.TaskViewConfig;
import io.taskmesh.topology.TaskViewMetrics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running gateway: task view + dispatcher + HTTP app, started and stopped together. */
public final class Gateway implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

  private final TaskView view;
  private final EnvelopeDispatcher dispatcher;
  private final GatewayApp app;
  private final FlyBus fly;
  private final OAuth oauth;
  private final PushConfigStore pushConfigs;

  private Gateway(
      TaskView view,
      EnvelopeDispatcher dispatcher,
      GatewayApp app,
      FlyBus fly,
      OAuth oauth,
      PushConfigStore pushConfigs) {
    this.pushConfigs = pushConfigs;
    this.view = view;
    this.dispatcher = dispatcher;
    this.app = app;
    this.fly = fly;
    this.oauth = oauth;
  }

  public static Gateway start(GatewayConfig config) {
    return start(config, TaskSettings.fromEnv(System.getenv()));
  }

  /**
   * Starts everything; a broker that does not answer yet (it starts beside us, or restarts) is
   * retried for {@link GatewayConfig#startupRetryTimeout()} first.
   *
   * @throws StartupRetry.GaveUp when the broker still does not answer after that
   */
  public static Gateway start(GatewayConfig config, TaskSettings tasks) {
    // first: an unreachable OAuth database stops the start before anything else runs
    OAuth oauth =
        config.oauth().enabled() && config.mode().servesApi()
            ? OAuth.start(config.oauth(), config.startupRetryTimeout())
            : null;
    FlowRegistry flows = FlowRegistry.load(config.configPath());
    // a replica must advertise the port it serves on, so with port 0 the port is chosen first
    int port = config.port() == 0 ? FreePort.on(config.host()) : config.port();
    String advertised =
        tasks.applicationServer() != null
            ? tasks.applicationServer()
            : TaskSettings.advertisedFor(config.host(), Integer.toString(port));
    // task counters exist at 0 for every flow and final status before the first task
    TaskViewMetrics.flowsLoaded(flows.all().keySet());
    flows.onChange(loaded -> TaskViewMetrics.flowsLoaded(loaded.keySet()));
    awaitBroker(config);
    CompletableFuture<PushConfigStore> pushConfigsStart = startPushConfigs(config);
    TaskView view;
    try {
      view = startTaskView(config, tasks, advertised);
    } catch (RuntimeException | Error e) {
      // the other start goes on by itself: what it started must not outlive this failed one
      pushConfigsStart.handle((started, failed) -> started).thenAccept(Gateway::closeQuietly);
      throw e;
    }
    PushConfigStore pushConfigs;
    try {
      pushConfigs = Threads.joined(pushConfigsStart);
    } catch (RuntimeException | Error e) {
      view.close();
      throw e;
    }
    if (config.clientAuthEnabled()
        && config.internalToken() == null
        && tasks.applicationServer() != null) {
      LOG.warn(
          "SVC_INTERNAL_TOKEN is not set while client auth is on: /internal routes are refused, so with"
              + " several replicas a task owned by another replica answers 503; set the same token on every replica");
    }
    EnvelopeDispatcher dispatcher = new EnvelopeDispatcher(config.bootstrapServers());
    TaskLauncher launcher =
        new TaskLauncher(
            view, dispatcher, config.namespace(), config.meshUrl(), tasks.topics().events().name());
    // a mesh-only replica serves no stream with FLY: it publishes and does not listen
    FlyBus fly =
        config.databaseUrl() == null
            ? new FlyBus()
            : new FlyBus(config.databaseUrl(), config.mode().servesApi(), config.namespace());
    GatewayApp app =
        new GatewayApp(
            config,
            flows,
            view,
            view,
            view.feed(),
            launcher,
            fly,
            tasks.sseKeepalive(),
            oauth,
            pushConfigs);
    GatewayOps.addChecks(app.readiness(), config, view);
    try {
      app.javalin().start(config.host(), port);
    } catch (RuntimeException e) {
      throw FreePort.bindFailure(config.host(), port, config.port() == 0, e);
    }
    if (config.configPath() != null && config.mode() != GatewayMode.MESH) {
      app.pollFlowConfig(config.configPollInterval());
    }
    return new Gateway(view, dispatcher, app, fly, oauth, pushConfigs);
  }

  /**
   * The push configs' catch-up, on a thread of its own: it runs beside the task view's start, as
   * each mostly waits on the broker.
   */
  private static CompletableFuture<PushConfigStore> startPushConfigs(GatewayConfig config) {
    if (!config.mode().servesApi()) {
      return CompletableFuture.completedFuture(PushConfigStore.inMemory());
    }
    return CompletableFuture.supplyAsync(
        () ->
            KafkaPushConfigs.start(
                config.bootstrapServers(),
                pushConfigTopic(config),
                TopicCreator.Spec.of(config.taskPartitions(), config.replicationFactor()),
                Duration.ofSeconds(60)),
        r -> Threads.startDaemon("push-configs-start", r));
  }

  private static TaskView startTaskView(
      GatewayConfig config, TaskSettings tasks, String advertised) {
    return TaskView.start(
        new TaskViewConfig(
            config.bootstrapServers(),
            config.applicationId(),
            config.stateDir(),
            config.taskPartitions(),
            config.replicationFactor(),
            advertised,
            config.internalToken(),
            tasks.eventsRetentionMs()),
        tasks.topics(),
        Duration.ofSeconds(60));
  }

  private static void closeQuietly(AutoCloseable started) {
    if (started == null) {
      return;
    }
    try {
      started.close();
    } catch (Exception e) {
      LOG.warn("closing what a failed start left: {}", e.toString());
    }
  }

  private static void awaitBroker(GatewayConfig config) {
    try {
      TopicCreator.awaitBroker(
          config.bootstrapServers(),
          TopicCreator.startupRetry(config.bootstrapServers(), config.startupRetryTimeout()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for Kafka", e);
    }
  }

  /**
   * One topic per application (the replicas of one gateway share it): {@code <application
   * id>.a2a-push-configs}.
   */
  static String pushConfigTopic(GatewayConfig config) {
    return config.applicationId() + ".a2a-push-configs";
  }

  /** The HTTP app, for tests that compare its routes with docs/api/openapi.json. */
  GatewayApp app() {
    return app;
  }

  public int port() {
    return app.javalin().port();
  }

  /** Retry delay given to SSE clients at shutdown, and how long the drain waits for them. */
  static final Duration SSE_RETRY = Duration.ofSeconds(1);

  static final Duration DRAIN_WITHIN = Duration.ofSeconds(5);

  /** Drains first (not ready; SSE clients told to retry elsewhere), then stops everything. */
  @Override
  public void close() {
    app.drain(SSE_RETRY, DRAIN_WITHIN);
    app.close();
    app.readiness().close();
    pushConfigs.close();
    fly.close();
    dispatcher.close();
    view.close();
    if (oauth != null) {
      oauth.close();
    }
  }
}

package io.taskmesh.gateway;

import io.taskmesh.topology.TaskView;
import io.taskmesh.topology.TaskViewConfig;
import java.time.Duration;

/** A running gateway: task view + dispatcher + HTTP app, started and stopped together. */
public final class Gateway implements AutoCloseable {
  private final TaskView view;
  private final EnvelopeDispatcher dispatcher;
  private final GatewayApp app;
  private final FlyBus fly;

  private Gateway(TaskView view, EnvelopeDispatcher dispatcher, GatewayApp app, FlyBus fly) {
    this.view = view;
    this.dispatcher = dispatcher;
    this.app = app;
    this.fly = fly;
  }

  public static Gateway start(GatewayConfig config) {
    return start(config, TaskSettings.fromEnv(System.getenv()));
  }

  public static Gateway start(GatewayConfig config, TaskSettings tasks) {
    FlowRegistry flows = FlowRegistry.load(config.configPath());
    TaskView view = TaskView.start(new TaskViewConfig(config.bootstrapServers(), config.applicationId(),
        config.stateDir(), config.taskPartitions(), config.replicationFactor(), tasks.applicationServer()),
        tasks.topics(), Duration.ofSeconds(60));
    EnvelopeDispatcher dispatcher = new EnvelopeDispatcher(config.bootstrapServers());
    TaskLauncher launcher = new TaskLauncher(view, dispatcher, config.namespace(), config.meshUrl());
    FlyBus fly = config.databaseUrl() == null ? new FlyBus() : new FlyBus(config.databaseUrl());
    GatewayApp app = new GatewayApp(config, flows, view, view, view.feed(), launcher, fly, tasks.sseKeepalive());
    app.javalin().start(config.host(), config.port());
    if (config.configPath() != null && config.mode() != GatewayMode.MESH) {
      app.pollFlowConfig(config.configPollInterval());
    }
    return new Gateway(view, dispatcher, app, fly);
  }

  public int port() {
    return app.javalin().port();
  }

  @Override
  public void close() {
    app.close();
    fly.close();
    dispatcher.close();
    view.close();
  }
}

package io.taskmesh.gateway;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.UnauthorizedResponse;
import io.javalin.json.JavalinJackson;
import io.taskmesh.gateway.a2a.A2aPorts;
import io.taskmesh.gateway.a2a.A2aRoutes;
import io.taskmesh.gateway.a2a.A2aTaskStarter;
import io.taskmesh.gateway.a2a.push.PushConfigStore;
import io.taskmesh.gateway.a2a.v1.A2aV1Routes;
import io.taskmesh.gateway.fly.FlyBus;
import io.taskmesh.gateway.follow.NewTaskQueries;
import io.taskmesh.gateway.follow.TaskOwners;
import io.taskmesh.gateway.follow.TaskStreams;
import io.taskmesh.gateway.http.HostCheck;
import io.taskmesh.gateway.http.LoopbackHostFilter;
import io.taskmesh.gateway.http.RefusedBodies;
import io.taskmesh.gateway.http.SlowClients;
import io.taskmesh.gateway.http.SseAcceptFilter;
import io.taskmesh.gateway.http.TraceContextFilter;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.gateway.launch.TaskLauncher;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.gateway.mcp.McpAuth;
import io.taskmesh.gateway.mcp.McpEndpoints;
import io.taskmesh.gateway.oauth.OAuth;
import io.taskmesh.gateway.oauth.OAuthRoutes;
import io.taskmesh.gateway.tasks.InternalTaskRoutes;
import io.taskmesh.gateway.tasks.MeshTaskRoutes;
import io.taskmesh.gateway.tasks.TaskListRoutes;
import io.taskmesh.gateway.tasks.TaskRoutes;
import io.taskmesh.gateway.ui.UiMeshRoutes;
import io.taskmesh.gateway.ui.UiRoutes;
import io.taskmesh.gateway.ui.UiSessions;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.schemas.Json;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.ops.Readiness;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import jakarta.servlet.DispatcherType;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's HTTP face. Built, not started: {@code Main} and the tests share this wiring.
 * Handlers throw; {@link ErrorResponses} turns domain errors into responses.
 */
public final class GatewayApp implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(GatewayApp.class);

  /** The spec's FLY body limit, which is also the largest body any route accepts. */
  static final long MAX_BODY_BYTES = 1024 * 1024;

  private final GatewayConfig config;
  private final FlowRegistry flows;
  private final TaskQueries queries;
  private final TaskCommands commands;
  private final TaskLauncher launcher;
  private final FlyBus fly;
  private final UpdateFeed feed;
  private final TaskStreams streams;
  private final MeshTaskRoutes meshTasks;
  private final TaskRoutes tasks;
  private final Javalin app;
  private final ToolCalls toolCalls;
  private final McpAuth mcpAuth;
  private final UiSessions uiSessions = new UiSessions(System::nanoTime);
  private final McpEndpoints mcp;
  private final OAuth oauth;
  private final PushConfigStore pushConfigs;
  private final UiRoutes ui;
  private final UiMeshRoutes uiMesh;
  // set while the routes are configured (api modes only); its streams are drained with the others
  private A2aRoutes a2a;
  static final String VERSION = "0.1.0";
  private final ScheduledExecutorService configPoller = Threads.scheduler("flow-config-poll");
  private final Readiness readiness = new Readiness();

  public GatewayApp(
      GatewayConfig config,
      FlowRegistry flows,
      TaskQueries queries,
      TaskCommands commands,
      UpdateFeed feed,
      TaskLauncher launcher,
      FlyBus fly) {
    // the in-process form (tests, tools): the spec's keepalive, no OAuth, push configs in memory
    this(
        config,
        flows,
        queries,
        commands,
        feed,
        launcher,
        fly,
        TaskStreams.KEEPALIVE,
        null,
        PushConfigStore.inMemory());
  }

  /**
   * @param oauth the running authorization server; required exactly when the config enables OAuth
   * @param pushConfigs where A2A push-notification configs are kept (shared by the replicas)
   */
  public GatewayApp(
      GatewayConfig config,
      FlowRegistry flows,
      TaskQueries queries,
      TaskCommands commands,
      UpdateFeed feed,
      TaskLauncher launcher,
      FlyBus fly,
      Duration sseKeepalive,
      OAuth oauth,
      PushConfigStore pushConfigs) {
    if (config.oauth().enabled() && config.mode().servesApi() && oauth == null) {
      throw new IllegalStateException(
          "OAuth is enabled in the configuration but no authorization server runs");
    }
    this.config = config;
    this.oauth = oauth;
    this.pushConfigs = pushConfigs;
    this.flows = flows;
    // every route reads tasks through it, so an id handed out a moment ago always resolves
    queries = new NewTaskQueries(queries, feed, config.newTaskWait(), Clock.systemUTC());
    this.queries = queries;
    this.commands = commands;
    this.feed = feed;
    this.launcher = launcher;
    this.toolCalls = new ToolCalls(flows, launcher, config.toolCallWait());
    this.mcpAuth =
        oauth != null
            ? new McpAuth(oauth::bearer, oauth.challenge())
            : new McpAuth(config.mcpApiKey());
    this.mcp =
        config.mode().servesApi()
            ? new McpEndpoints(
                toolCalls,
                queries,
                commands,
                feed,
                launcher::resume,
                fly::subscribe,
                mcpAuth,
                config.mcpAllowedHosts(),
                config.mcpAllowedOrigins(),
                VERSION,
                MAX_BODY_BYTES,
                config.internalToken())
            : null;
    this.fly = fly;
    this.streams = new TaskStreams(queries, feed, fly, sseKeepalive);
    this.meshTasks = new MeshTaskRoutes(queries, commands, fly, flows, streams);
    this.tasks =
        new TaskRoutes(
            queries, toolCalls, streams, this::requireMcpAuth, config.mode() == GatewayMode.MESH);
    this.ui =
        new UiRoutes(
            flows,
            launcher,
            feed,
            // its owner checks run on one shared thread, which a wait would hold up for everyone
            NewTaskQueries.withoutWaiting(queries),
            this::requireMcpAuth,
            TaskOwners::visibleTo,
            mcpAuth.enabled(),
            uiSessions,
            config.uiEvalsDir(),
            principal -> !mcpAuth.enabled() || McpAuth.STATIC_KEY_PRINCIPAL.equals(principal));
    this.uiMesh =
        new UiMeshRoutes(
            config.mode().servesApi() ? config.uiMeshApiUrl() : null,
            config.bootstrapServers(),
            config.meshApiEventsTopic(),
            config.replicationFactor(),
            this::requireMcpAuth);
    this.app = Javalin.create(this::configure);
  }

  public Javalin javalin() {
    return app;
  }

  /** Javalin's setup: the server's limits, the filters, then the routes in the order they match. */
  private void configure(JavalinConfig cfg) {
    serverSettings(cfg);
    cfg.jetty.modifyServletContextHandler(this::addFilters);
    mountOpsRoutes(cfg);
    GatewayMode mode = config.mode();
    if (mode.servesApi()) {
      mountDashboard(cfg);
    }
    mountTaskReads(cfg);
    if (mode.servesApi()) {
      mountProtocols(cfg);
    }
    if (mode.servesMesh()) {
      meshTasks.mount(cfg);
    }
    ErrorResponses.register(cfg);
  }

  private static void serverSettings(JavalinConfig cfg) {
    cfg.startup.showJavalinBanner = false;
    cfg.jsonMapper(new JavalinJackson(Json.MAPPER, false));
    cfg.http.maxRequestSize = MAX_BODY_BYTES;
    SlowClients.guard(cfg, MAX_BODY_BYTES);
    // a known path asked with a method it does not serve is 405 with Allow (RFC 9110), not 404
    cfg.http.prefer405over404 = true;
  }

  /** Servlet filters, run on every request in this order before any route. */
  private void addFilters(ServletContextHandler h) {
    addRequestFilter(h, new FilterHolder(new TraceContextFilter()));
    if (LoopbackHostFilter.isLoopback(config.host())) {
      FilterHolder hosts =
          new FilterHolder(
              new LoopbackHostFilter(
                  new HostCheck(config.mcpAllowedHosts(), config.mcpAllowedOrigins())));
      hosts.setAsyncSupported(true);
      addRequestFilter(h, hosts);
    }
    addRequestFilter(h, new FilterHolder(SseAcceptFilter.streamRoutes()));
    addRequestFilter(h, new FilterHolder(RefusedBodies.afterTooLarge()));
    GatewayOps.countProtocolRequests(h, config.mode());
  }

  private static void addRequestFilter(ServletContextHandler h, FilterHolder filter) {
    h.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST));
  }

  /** Health, readiness, metrics and the API document, in every mode. */
  private void mountOpsRoutes(JavalinConfig cfg) {
    cfg.routes.get("/health", ctx -> ctx.contentType("text/plain").result("OK"));
    cfg.routes.get("/ready", ctx -> GatewayOps.ready(ctx, readiness));
    cfg.routes.get("/metrics", GatewayOps::metrics);
    cfg.routes.get(
        "/openapi.json",
        ctx -> ctx.contentType("application/json").result(ApiDocument.openApiJson()));
  }

  /** The dashboard; mounted before the task reads, since /tasks/{id} would take /tasks/stream. */
  private void mountDashboard(JavalinConfig cfg) {
    uiMesh.mount(cfg); // before ui's /ui/{file}
    ui.mount(cfg);
  }

  /** Task reads for clients and, behind the internal token, for the other replicas. */
  private void mountTaskReads(JavalinConfig cfg) {
    tasks.mountRead(cfg);
    new InternalTaskRoutes(queries, config.internalToken(), config.clientAuthEnabled()).mount(cfg);
  }

  /** The client protocols of the api modes: MCP, OAuth, A2A (0.3 and 1.0) and the REST calls. */
  private void mountProtocols(JavalinConfig cfg) {
    mcp.mount(cfg);
    if (oauth != null) {
      OAuthRoutes.register(cfg, oauth);
    }
    a2a =
        A2aRoutes.register(
            cfg,
            config.a2a(),
            new A2aPorts(
                flows::all,
                new A2aTaskStarter(launcher),
                fly::subscribe,
                queries,
                commands,
                feed,
                TaskListing.of(queries),
                pushConfigs));
    A2aV1Routes.register(cfg, a2a);
    tasks.mountCallAndStream(cfg);
    new TaskListRoutes(
            queries, commands, this::requireMcpAuth, TaskOwners::visibleTo, launcher::resume)
        .mount(cfg);
  }

  /** MCP auth ({@code SVC_MCP_API_KEY}); returns the owner to record on new tasks. */
  private String requireMcpAuth(Context ctx) {
    String session = mcpAuth.enabled() ? UiRoutes.sessionId(ctx) : null;
    String principal =
        (session != null
                ? uiSessions.principal(session)
                : mcpAuth.authenticate(ctx.header("Authorization")))
            .orElseThrow(
                () -> {
                  ctx.header("WWW-Authenticate", mcpAuth.wwwAuthenticate());
                  return new UnauthorizedResponse("missing or invalid bearer token");
                });
    return mcpAuth.owner(principal);
  }

  /** Re-reads the flow config every {@code interval} (spec: polled, default 10 s). */
  void pollFlowConfig(Duration interval) {
    long ms = Math.max(100, interval.toMillis());
    configPoller.scheduleWithFixedDelay(
        () -> {
          try {
            flows.reload();
          } catch (RuntimeException e) {
            LOG.warn("flow config poll failed: {}", e.toString());
          }
        },
        ms,
        ms,
        TimeUnit.MILLISECONDS);
  }

  /** The checks behind {@code GET /ready}; {@link Gateway#start} adds Kafka, Streams, database. */
  public Readiness readiness() {
    return readiness;
  }

  /**
   * Shutdown drain: {@code /ready} answers 503 from now on, and every SSE client (task streams, A2A
   * streams, the UI's task list) is told to reconnect after {@code retry} (to another replica) and
   * closed, waiting up to {@code within} for all of them together.
   */
  public void drain(Duration retry, Duration within) {
    readiness.drain();
    List<SseWriters> endpoints = new ArrayList<>(List.of(streams.writers(), ui.writers()));
    if (a2a != null) {
      endpoints.add(a2a.streams());
    }
    try {
      int left = SseWriters.finishAllWithRetry(endpoints, retry, within);
      if (left > 0) {
        LOG.warn("{} SSE clients still open after the drain; closing them", left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    configPoller.shutdownNow();
    if (mcp != null) {
      mcp.close();
    }
    // every SSE client is ended (and unsubscribed from its feeds) while the server still runs:
    // once it stops, their responses are recycled and a late write would find them gone
    streams.close();
    ui.close();
    uiMesh.close();
    if (a2a != null) {
      a2a.streams().close();
    }
    app.stop();
  }
}

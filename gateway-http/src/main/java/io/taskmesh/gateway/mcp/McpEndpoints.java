package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.JavalinConfig;
import io.taskmesh.gateway.http.HostCheck;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletHolder;

/**
 * MCP on the gateway's Jetty, our own JSON-RPC handling (see gateway-http/README.md, MCP, for why
 * not the Java SDK): Streamable HTTP on {@code /mcp} and the older HTTP+SSE transport on {@code
 * /mcp/sse} (messages POSTed to {@code /mcp/message}). One servlet on Javalin's servlet context
 * (async SSE streams outlive a Javalin handler), behind the filters that answer every error as
 * JSON-RPC, authenticate, and check each request.
 */
public final class McpEndpoints implements AutoCloseable {
  public static final String STREAMABLE_PATH = "/mcp";
  public static final String SSE_PATH = "/mcp/sse";
  public static final String MESSAGE_PATH = "/mcp/message";

  /** How often sessions a client left are looked for. */
  private static final long IDLE_SWEEP_SECONDS = 15;

  private static final Duration SESSION_IDLE = Duration.ofMinutes(30);

  /**
   * MCP's streams: replayable (a client too far behind is cut off and resumes with {@code
   * Last-Event-ID}), nothing dropped.
   */
  private static final SsePolicy STREAMS =
      new SsePolicy(
          SsePolicy.REPLAYABLE_BACKLOG, Integer.MAX_VALUE, SsePolicy.SPEC_KEEPALIVE, "keepalive");

  private static final int WRITER_THREADS = 4;

  private final SseWriters writers = new SseWriters("mcp-sse", WRITER_THREADS, STREAMS);
  private final McpSessions sessions = new McpSessions(writers);
  private final McpListen listen;
  private final ExecutorService notifier;
  private final ScheduledExecutorService idleSweep;
  private final McpServlet servlet;
  private final McpAuthFilter authFilter;
  private final McpRequestGuard guard;

  /**
   * @param resume hands input to a paused task (what an accepted elicitation answered)
   * @param flies subscribes to a task's live FLY events (a plain call's tokens)
   * @param allowedHosts Host header patterns ({@code host:port}, {@code host:*}); empty = no Host
   *     check
   * @param allowedOrigins Origin patterns; a request without Origin always passes
   * @param maxBodyBytes the largest request body, as on every other route (the servlet is not
   *     behind Javalin's limit)
   * @param requestStateSecret what signs {@code input_required} request states: the replicas'
   *     shared {@code SVC_INTERNAL_TOKEN} (null: a random key of this gateway)
   */
  public McpEndpoints(
      ToolCalls calls,
      TaskQueries queries,
      TaskCommands commands,
      UpdateFeed feed,
      BiConsumer<String, JsonNode> resume,
      BiFunction<String, Consumer<JsonNode>, AutoCloseable> flies,
      McpAuth auth,
      List<String> allowedHosts,
      List<String> allowedOrigins,
      String version,
      long maxBodyBytes,
      String requestStateSecret) {
    this.notifier = Executors.newCachedThreadPool(daemon("mcp-notify"));
    this.idleSweep = Executors.newSingleThreadScheduledExecutor(daemon("mcp-idle-sweep"));
    McpTasks tasks =
        new McpTasks(
            queries,
            commands,
            feed,
            notifier,
            resume,
            flies,
            RequestStates.keyedBy(requestStateSecret),
            idleSweep);
    this.listen = new McpListen(tasks, writers);
    McpToolList tools = new McpToolList();
    tools.update(calls.flows().all());
    calls
        .flows()
        .onChange(
            flows -> {
              if (tools.update(flows)) {
                String changed =
                    McpTasks.notification("notifications/tools/list_changed", Map.of());
                sessions.all().forEach(s -> s.send(changed));
                listen.toolsChanged();
              }
            });
    McpResources resources = new McpResources(tasks, queries);
    McpTaskExtension extension = new McpTaskExtension(tasks, commands, resume);
    McpMethods methods =
        McpMethods.of(
            new McpLifecycle(version),
            new McpToolMethods(calls, tools, tasks, extension, writers),
            tasks,
            extension,
            resources,
            listen);
    McpSessionCalls protocol = new McpSessionCalls(methods);
    McpStateless stateless = new McpStateless(calls, methods, listen, auth);
    this.servlet =
        new McpServlet(
            protocol, stateless, sessions, new HostCheck(allowedHosts, allowedOrigins), auth);
    this.authFilter = new McpAuthFilter(auth, sessions);
    this.guard = new McpRequestGuard(STREAMABLE_PATH, MESSAGE_PATH, maxBodyBytes);
    idleSweep.scheduleAtFixedRate(
        () -> sessions.closeIdle(SESSION_IDLE),
        IDLE_SWEEP_SECONDS,
        IDLE_SWEEP_SECONDS,
        TimeUnit.SECONDS);
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /**
   * Registers the servlet behind three filters, in this order: JSON-RPC error bodies for every
   * error, then auth, then the request checks (so a client without credentials learns nothing about
   * its request but the 401).
   */
  public void mount(JavalinConfig cfg) {
    cfg.jetty.modifyServletContextHandler(
        h -> {
          EnumSet<DispatcherType> requests = EnumSet.of(DispatcherType.REQUEST);
          for (var filter : List.of(new McpErrorResponses(), authFilter, guard)) {
            FilterHolder holder = new FilterHolder(filter);
            holder.setAsyncSupported(true);
            for (String path : List.of(STREAMABLE_PATH, SSE_PATH, MESSAGE_PATH)) {
              h.addFilter(holder, path, requests);
            }
          }
          ServletHolder holder = new ServletHolder("mcp", servlet);
          holder.setAsyncSupported(true);
          for (String path : List.of(STREAMABLE_PATH, SSE_PATH, MESSAGE_PATH)) {
            h.addServlet(holder, path);
          }
        });
  }

  @Override
  public void close() {
    idleSweep.shutdownNow();
    sessions.closeAll();
    listen.closeAll();
    writers.close();
    notifier.shutdownNow();
  }
}

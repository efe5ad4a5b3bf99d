package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.taskmesh.gateway.a2a.card.AgentCards;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aSettings;
import io.taskmesh.gateway.a2a.push.PushNotifier;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.gateway.http.SseAcceptFilter;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.ViewUnavailableException;
import jakarta.servlet.DispatcherType;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A2A 0.3 JSON-RPC face of the gateway (api and testing modes), as a transport: the agent card
 * at {@code /.well-known/agent.json} and {@code /.well-known/agent-card.json} (public), and {@code
 * POST /a2a/} (A2A auth), which parses the envelope, authenticates, and hands the call to the
 * method of its name; domain failures become JSON-RPC errors here. The methods answer under their
 * spec names and their A2A 0.3 names ({@code agent/getAuthenticatedExtendedCard}, {@code
 * tasks/pushNotificationConfig/*}).
 *
 * <p>{@code message/stream} and {@code tasks/resubscribe} always stream; {@code message/send}
 * streams when the client accepts {@code text/event-stream} (spec), else it answers one JSON-RPC
 * response (the a2a-js client's non-streaming send, plain JSON clients).
 *
 * <p>Every answer to a request that reached the method dispatch is JSON-RPC, HTTP 200 (as the A2A
 * SDKs' JSON-RPC servers answer errors), including a body over the gateway's limit: Invalid Request
 * (-32600) with a null id (the body is not read, so its id is unknown), the code the A2A SDK
 * servers use for an oversized payload. Only auth failures (401) stay HTTP statuses.
 */
public final class A2aRoutes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(A2aRoutes.class);
  static final String PRINCIPAL_PREFIX = "a2a:";

  private final A2aAuth auth;
  private final AgentCards cards;
  private final PushNotifier push;
  private final ExecutorService writers = Threads.fixedPool("a2a-sse-writer", 4);
  private final ScheduledExecutorService timers = Threads.scheduler("a2a-timer");
  private final A2aSse sse;
  private final Map<String, Operation> names = new HashMap<>();
  private final Map<Operation, A2aMethod> methods = new EnumMap<>(Operation.class);

  /**
   * What a call asks, whatever its binding names it: each binding (0.3 JSON-RPC here, A2A 1.0 in
   * {@code a2a.v1}) maps its method names or routes to these and shares the method classes.
   */
  public enum Operation {
    SEND,
    GET,
    LIST,
    CANCEL,
    /** 0.3 {@code tasks/resubscribe}: a task whose stream is over gets its closing events. */
    RESUBSCRIBE,
    /** 1.0 {@code SubscribeToTask}: a task in a terminal state is UnsupportedOperation. */
    SUBSCRIBE,
    PUSH_SET,
    PUSH_GET,
    PUSH_LIST,
    PUSH_DELETE,
    EXTENDED_CARD
  }

  /** One JSON-RPC method. */
  @FunctionalInterface
  interface A2aMethod {
    void call(A2aCall call) throws Exception;
  }

  A2aRoutes(A2aSettings settings, A2aPorts ports) {
    this.auth = new A2aAuth(settings);
    this.cards = new AgentCards(settings, ports.flows());
    this.push =
        new PushNotifier(
            ports.queries(),
            ports.feed(),
            settings.pushAllowPrivate(),
            ports.pushConfigs(),
            PushNotifier.Retry.DEFAULT);
    TaskFollower follower = new TaskFollower(ports.queries(), ports.feed(), writers, timers);
    this.sse = new A2aSse(follower, ports.fly());
    OwnedTasks tasks = new OwnedTasks(ports.queries(), follower);
    SendMethod send = new SendMethod(cards::skills, ports.starter(), push, tasks);
    TaskReadMethods reads = new TaskReadMethods(tasks, ports.listing());
    CancelMethod cancel = new CancelMethod(tasks, ports.commands());
    ResubscribeMethod resubscribe = new ResubscribeMethod(tasks);
    PushConfigMethods pushConfigs = new PushConfigMethods(tasks, push);
    method(Operation.SEND, send::send, "message/send", "message/stream");
    method(Operation.GET, reads::get, "tasks/get");
    method(Operation.LIST, reads::list, "tasks/list");
    method(Operation.CANCEL, cancel::cancel, "tasks/cancel");
    method(Operation.RESUBSCRIBE, resubscribe::resubscribe, "tasks/resubscribe");
    method(Operation.SUBSCRIBE, resubscribe::subscribe);
    method(
        Operation.EXTENDED_CARD,
        call -> call.reply(cards.extendedCard(call.context())),
        "agent/authenticatedExtendedCard",
        "agent/getAuthenticatedExtendedCard");
    method(
        Operation.PUSH_SET,
        pushConfigs::set,
        "pushNotification/set",
        "tasks/pushNotificationConfig/set");
    method(
        Operation.PUSH_GET,
        pushConfigs::get,
        "pushNotification/get",
        "tasks/pushNotificationConfig/get");
    method(
        Operation.PUSH_LIST,
        pushConfigs::list,
        "pushNotification/list",
        "tasks/pushNotificationConfig/list");
    method(
        Operation.PUSH_DELETE,
        pushConfigs::delete,
        "pushNotification/delete",
        "tasks/pushNotificationConfig/delete");
  }

  /**
   * Push notifications to configs registered over another binding: {@code form} is that binding's
   * {@link A2aWire#pushForm()}, {@code payload} turns the 0.3 Task into its notification body.
   */
  public void pushForm(String form, UnaryOperator<JsonNode> payload) {
    push.addForm(form, payload);
  }

  /** Registers the A2A routes on a gateway that serves the api routes; null settings = defaults. */
  public static A2aRoutes register(JavalinConfig cfg, A2aSettings settings, A2aPorts ports) {
    A2aRoutes routes = new A2aRoutes(settings != null ? settings : A2aSettings.defaults(), ports);
    routes.mount(cfg);
    return routes;
  }

  private void method(Operation operation, A2aMethod handler, String... methodNames) {
    methods.put(operation, handler);
    for (String name : methodNames) {
      names.put(name, operation);
    }
  }

  void mount(JavalinConfig cfg) {
    for (String path : new String[] {"/a2a/*", "/a2a"}) {
      cfg.jetty.modifyServletContextHandler(
          h ->
              h.addFilter(
                  new FilterHolder(SseAcceptFilter.posts()),
                  path,
                  EnumSet.of(DispatcherType.REQUEST)));
    }
    cfg.routes.get("/.well-known/agent.json", cards::publicCard);
    cfg.routes.get("/.well-known/agent-card.json", cards::publicCard);
    cfg.routes.post("/a2a/", this::rpc);
    cfg.events.serverStopping(this::close);
  }

  /**
   * Serves the public card in A2A 1.0's fields only, for 1.0 clients that discover the agent at the
   * 1.0 interface's own base URL ({@code /a2a/v1}).
   */
  public void v1Card(Context ctx) {
    cards.v1PublicCard(ctx);
  }

  /**
   * Authenticates an A2A request (every binding takes the same credentials). Answers 401 itself and
   * returns false when the credentials are missing or wrong; else {@code owner} gets the task owner
   * of the caller (null while A2A auth is off).
   */
  public boolean authenticate(Context ctx, Consumer<String> owner) {
    A2aAuth.Result who = auth.authenticate(ctx.header("X-API-Key"), ctx.header("Authorization"));
    if (!who.ok()) {
      ctx.status(HttpStatus.UNAUTHORIZED)
          .contentType("text/plain")
          .result("missing or invalid A2A credentials");
      return false;
    }
    owner.accept(who.principal() == null ? null : PRINCIPAL_PREFIX + who.principal());
    return true;
  }

  private void rpc(Context ctx) throws Exception {
    String[] principal = new String[1];
    if (!authenticate(ctx, p -> principal[0] = p)) {
      return;
    }
    byte[] body;
    try {
      body = ctx.bodyAsBytes();
    } catch (HttpResponseException e) {
      if (e.getStatus() != HttpStatus.CONTENT_TOO_LARGE.getCode()) {
        throw e;
      }
      A2aCall.json(
          ctx,
          JsonRpc.error(null, A2aException.INVALID_REQUEST, "Invalid Request: payload too large"));
      return;
    }
    JsonRpc.Request req;
    try {
      req = JsonRpc.parse(body);
    } catch (A2aException e) {
      A2aCall.json(ctx, JsonRpc.error(JsonRpc.idOf(body), e.code(), e.getMessage()));
      return;
    }
    boolean streaming =
        switch (req.method()) {
          case "message/stream", "tasks/resubscribe" -> true;
          case "message/send" -> A2aCall.acceptsEventStream(ctx);
          default -> false;
        };
    Operation operation = names.get(req.method());
    if (operation == null) {
      A2aWire.JSON_RPC_03.error(
          ctx,
          req.id(),
          new A2aException(A2aException.METHOD_NOT_FOUND, "Method not found: " + req.method()));
      return;
    }
    serve(ctx, operation, req, principal[0], streaming, A2aWire.JSON_RPC_03);
  }

  /**
   * Runs one operation for an authenticated caller and answers it on {@code wire}; domain failures
   * become the wire's errors.
   *
   * @param request the call as a JSON-RPC request whose params have the 0.3 shape
   * @param streaming whether the answer is SSE
   */
  public void serve(
      Context ctx,
      Operation operation,
      JsonRpc.Request request,
      String principal,
      boolean streaming,
      A2aWire wire)
      throws Exception {
    A2aCall call = new A2aCall(ctx, request, principal, streaming, sse, wire);
    try {
      methods.get(operation).call(call);
    } catch (A2aException e) {
      call.fail(e);
    } catch (ViewUnavailableException e) {
      call.fail(
          new A2aException(A2aException.INTERNAL_ERROR, "Task view unavailable, retry shortly"));
    } catch (EventLogException e) {
      LOG.error("A2A: task log write failed: {}", e.getMessage());
      call.fail(new A2aException(A2aException.INTERNAL_ERROR, "Task log unavailable"));
    }
  }

  /**
   * Shutdown drain of the A2A streams ({@code message/stream}, {@code SendStreamingMessage},
   * resubscribe, {@code SubscribeToTask}): the SSE endpoint whose clients get a {@code retry:}.
   */
  public SseWriters streams() {
    return sse.writers();
  }

  @Override
  public void close() {
    sse.close();
    timers.shutdownNow();
    writers.shutdownNow();
    push.close();
  }
}

package io.taskmesh.gateway.a2a;

import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.ViewUnavailableException;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A2A 0.3 JSON-RPC face of the gateway (api and testing modes), as a transport: the agent
 * card at {@code /.well-known/agent.json} and {@code /.well-known/agent-card.json} (public), and
 * {@code POST /a2a/} (A2A auth), which parses the envelope, authenticates, and hands the call to
 * the method of its name; domain failures become JSON-RPC errors here. The methods answer under
 * their spec names and their A2A 0.3 names ({@code agent/getAuthenticatedExtendedCard},
 * {@code tasks/pushNotificationConfig/*}).
 *
 * <p>{@code message/stream} and {@code tasks/resubscribe} always stream; {@code message/send}
 * streams when the client accepts {@code text/event-stream} (spec), else it answers one JSON-RPC
 * response (the a2a-js client's non-streaming send, plain JSON clients).
 *
 * <p>Every answer to a request that reached the method dispatch is JSON-RPC, HTTP 200 (as the A2A
 * SDKs' JSON-RPC servers answer errors), including a body over the gateway's limit: Invalid
 * Request (-32600) with a null id (the body is not read, so its id is unknown), the code the
 * A2A SDK servers use for an oversized payload. Only auth failures (401) stay HTTP statuses.
 */
public final class A2aRoutes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(A2aRoutes.class);
  static final String PRINCIPAL_PREFIX = "a2a:";

  private final A2aAuth auth;
  private final AgentCards cards;
  private final PushNotifier push;
  private final ExecutorService writers = Executors.newFixedThreadPool(4, daemon("a2a-sse-writer"));
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(daemon("a2a-timer"));
  private final A2aSse sse;
  private final Map<String, A2aMethod> methods = new HashMap<>();

  /** One JSON-RPC method. */
  @FunctionalInterface
  interface A2aMethod {
    void call(A2aCall call) throws Exception;
  }

  A2aRoutes(A2aSettings settings, A2aPorts ports) {
    this.auth = new A2aAuth(settings);
    this.cards = new AgentCards(settings, ports.flows());
    this.push = new PushNotifier(ports.queries(), ports.feed(), settings.pushAllowPrivate());
    this.sse = new A2aSse(ports.queries(), ports.feed(), ports.fly(), writers, timers);
    OwnedTasks tasks = new OwnedTasks(ports.queries());
    TaskWaiter waiter = new TaskWaiter(tasks, ports.feed(), writers, timers);
    SendMethod send = new SendMethod(cards::skills, ports.starter(), push, tasks, waiter);
    TaskReadMethods reads = new TaskReadMethods(tasks, ports.listing());
    CancelMethod cancel = new CancelMethod(tasks, ports.commands(), waiter);
    ResubscribeMethod resubscribe = new ResubscribeMethod(tasks);
    PushConfigMethods pushConfigs = new PushConfigMethods(tasks, push);
    method(send::send, "message/send", "message/stream");
    method(reads::get, "tasks/get");
    method(reads::list, "tasks/list");
    method(cancel::cancel, "tasks/cancel");
    method(resubscribe::resubscribe, "tasks/resubscribe");
    method(cards::extendedCard, "agent/authenticatedExtendedCard", "agent/getAuthenticatedExtendedCard");
    method(pushConfigs::set, "pushNotification/set", "tasks/pushNotificationConfig/set");
    method(pushConfigs::get, "pushNotification/get", "tasks/pushNotificationConfig/get");
    method(pushConfigs::list, "pushNotification/list", "tasks/pushNotificationConfig/list");
    method(pushConfigs::delete, "pushNotification/delete", "tasks/pushNotificationConfig/delete");
  }

  /** Registers the A2A routes on a gateway that serves the api routes; null settings = defaults. */
  public static A2aRoutes register(JavalinConfig cfg, A2aSettings settings, A2aPorts ports) {
    A2aRoutes routes = new A2aRoutes(settings != null ? settings : A2aSettings.defaults(), ports);
    routes.mount(cfg);
    return routes;
  }

  private void method(A2aMethod handler, String... names) {
    for (String name : names) {
      methods.put(name, handler);
    }
  }

  void mount(JavalinConfig cfg) {
    for (String path : new String[] {"/a2a/*", "/a2a"}) {
      cfg.jetty.modifyServletContextHandler(h -> h.addFilter(new FilterHolder(new A2aAcceptFilter()), path,
          EnumSet.of(DispatcherType.REQUEST)));
    }
    cfg.routes.get("/.well-known/agent.json", cards::publicCard);
    cfg.routes.get("/.well-known/agent-card.json", cards::publicCard);
    cfg.routes.post("/a2a/", this::rpc);
    cfg.events.serverStopping(this::close);
  }

  private void rpc(Context ctx) throws Exception {
    A2aAuth.Result who = auth.authenticate(ctx.header("X-API-Key"), ctx.header("Authorization"));
    if (!who.ok()) {
      ctx.status(HttpStatus.UNAUTHORIZED).contentType("text/plain").result("missing or invalid A2A credentials");
      return;
    }
    String principal = who.principal() == null ? null : PRINCIPAL_PREFIX + who.principal();
    byte[] body;
    try {
      body = ctx.bodyAsBytes();
    } catch (HttpResponseException e) {
      if (e.getStatus() != HttpStatus.CONTENT_TOO_LARGE.getCode()) {
        throw e;
      }
      A2aCall.json(ctx, JsonRpc.error(null, A2aException.INVALID_REQUEST,
          "Invalid Request: payload too large"));
      return;
    }
    JsonRpc.Request req;
    try {
      req = JsonRpc.parse(body);
    } catch (A2aException e) {
      A2aCall.json(ctx, JsonRpc.error(JsonRpc.idOf(body), e.code(), e.getMessage()));
      return;
    }
    boolean streaming = switch (req.method()) {
      case "message/stream", "tasks/resubscribe" -> true;
      case "message/send" -> A2aCall.acceptsEventStream(ctx);
      default -> false;
    };
    A2aCall call = new A2aCall(ctx, req, principal, streaming, sse);
    try {
      A2aMethod method = methods.get(req.method());
      if (method == null) {
        throw new A2aException(A2aException.METHOD_NOT_FOUND, "Method not found: " + req.method());
      }
      method.call(call);
    } catch (A2aException e) {
      call.fail(e);
    } catch (ViewUnavailableException e) {
      call.fail(new A2aException(A2aException.INTERNAL_ERROR, "Task view unavailable, retry shortly"));
    } catch (EventLogException e) {
      LOG.error("A2A: task log write failed: {}", e.getMessage());
      call.fail(new A2aException(A2aException.INTERNAL_ERROR, "Task log unavailable"));
    }
  }

  @Override
  public void close() {
    timers.shutdownNow();
    writers.shutdownNow();
    push.close();
  }

  private static ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}

package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.javalin.http.sse.SseHandler;
import io.taskmesh.gateway.FlowRegistry;
import io.taskmesh.gateway.GatewayConfig;
import io.taskmesh.gateway.TaskLauncher;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Times;
import io.taskmesh.topology.EventLogException;
import io.taskmesh.topology.TaskCommands;
import io.taskmesh.topology.TaskListing;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import io.taskmesh.topology.ViewUnavailableException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The A2A 0.3 JSON-RPC face of the gateway (api and testing modes): the agent card at
 * {@code /.well-known/agent.json} and {@code /.well-known/agent-card.json} (public), and
 * {@code POST /a2a/} (A2A auth) with the methods of the spec, under their spec names and their
 * A2A 0.3 names ({@code agent/getAuthenticatedExtendedCard},
 * {@code tasks/pushNotificationConfig/*}).
 *
 * <p>{@code message/send} streams SSE until the task is completed, failed, canceled,
 * input-required or auth-required when the client accepts {@code text/event-stream} (spec); a
 * client whose {@code Accept} does not name {@code text/event-stream} (the a2a-js client's
 * non-streaming send, plain JSON clients) gets one JSON-RPC response with the Task in that state
 * instead, or at once when {@code configuration.blocking} is false. {@code message/stream} and
 * {@code tasks/resubscribe} always stream.
 */
public final class A2aRoutes implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(A2aRoutes.class);
  static final long KEEPALIVE_SECONDS = 15;
  static final long CANCEL_WAIT_MS = 10_000;
  /** How long a non-blocking message/send waits for its task to be folded before it answers. */
  static final long VISIBLE_WAIT_MS = 5_000;
  static final int DEFAULT_PAGE_SIZE = 50;
  static final int MAX_PAGE_SIZE = 100;
  static final String PRINCIPAL_PREFIX = "a2a:";

  private final A2aSettings settings;
  private final FlowRegistry flows;
  private final TaskQueries queries;
  private final TaskCommands commands;
  private final TaskLauncher launcher;
  private final io.taskmesh.gateway.FlyBus fly;
  private final UpdateFeed feed;
  private final TaskListing listing;
  private final A2aAuth auth;
  private final PushNotifier push;
  private final ExecutorService writers = Executors.newFixedThreadPool(4, daemon("a2a-sse-writer"));
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(daemon("a2a-timer"));
  private final Set<A2aStream> open = ConcurrentHashMap.newKeySet();

  A2aRoutes(A2aSettings settings, FlowRegistry flows, TaskQueries queries, TaskCommands commands,
      TaskLauncher launcher, io.taskmesh.gateway.FlyBus fly, UpdateFeed feed, TaskListing listing) {
    this.settings = settings;
    this.flows = flows;
    this.queries = queries;
    this.commands = commands;
    this.launcher = launcher;
    this.fly = fly;
    this.feed = feed;
    this.listing = listing;
    this.auth = new A2aAuth(settings);
    this.push = new PushNotifier(queries, feed, settings.pushAllowPrivate());
    timers.scheduleAtFixedRate(() -> open.forEach(s -> s.comment("keepalive")),
        KEEPALIVE_SECONDS, KEEPALIVE_SECONDS, TimeUnit.SECONDS);
  }

  /** Registers the A2A routes on a gateway that serves the api routes; {@code feed} serves streams and waits. */
  public static A2aRoutes register(JavalinConfig cfg, GatewayConfig config, FlowRegistry flows, TaskQueries queries,
      TaskCommands commands, UpdateFeed feed, TaskLauncher launcher, io.taskmesh.gateway.FlyBus fly) {
    A2aSettings settings = config.a2a() != null ? config.a2a() : A2aSettings.defaults();
    A2aRoutes routes = new A2aRoutes(settings, flows, queries, commands, launcher, fly, feed,
        TaskListing.of(queries));
    routes.mount(cfg);
    return routes;
  }

  void mount(JavalinConfig cfg) {
    cfg.jetty.modifyServletContextHandler(h -> h.addFilter(
        new org.eclipse.jetty.ee10.servlet.FilterHolder(new A2aAcceptFilter()), "/a2a/*",
        java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST)));
    cfg.jetty.modifyServletContextHandler(h -> h.addFilter(
        new org.eclipse.jetty.ee10.servlet.FilterHolder(new A2aAcceptFilter()), "/a2a",
        java.util.EnumSet.of(jakarta.servlet.DispatcherType.REQUEST)));
    cfg.routes.get("/.well-known/agent.json", this::card);
    cfg.routes.get("/.well-known/agent-card.json", this::card);
    cfg.routes.post("/a2a/", this::rpc);
    cfg.events.serverStopping(this::close);
  }

  private void card(Context ctx) {
    ctx.contentType("application/json").result(Json.write(AgentCard.build(settings, endpoint(ctx), skills().values(), false)));
  }

  /** Flows with an {@code a2a} section, by name. */
  Map<String, FlowConfig> skills() {
    Map<String, FlowConfig> out = new LinkedHashMap<>();
    flows.all().forEach((name, flow) -> {
      if (flow.a2a() != null && !flow.a2a().isMissingNode()) {
        out.put(name, flow);
      }
    });
    return out;
  }

  private String endpoint(Context ctx) {
    if (settings.publicUrl() != null) {
      String base = settings.publicUrl().toString();
      return (base.endsWith("/") ? base.substring(0, base.length() - 1) : base) + "/a2a/";
    }
    String host = ctx.header("Host");
    return ctx.scheme() + "://" + (host != null ? host : ctx.host()) + "/a2a/";
  }

  // ---- POST /a2a/ ----------------------------------------------------------------------------

  private void rpc(Context ctx) throws Exception {
    A2aAuth.Result who = auth.authenticate(ctx.header("X-API-Key"), ctx.header("Authorization"));
    if (!who.ok()) {
      ctx.status(HttpStatus.UNAUTHORIZED).contentType("text/plain").result("missing or invalid A2A credentials");
      return;
    }
    String principal = who.principal() == null ? null : PRINCIPAL_PREFIX + who.principal();
    byte[] body = ctx.bodyAsBytes();
    JsonRpc.Request req;
    try {
      req = JsonRpc.parse(body);
    } catch (A2aException e) {
      json(ctx, JsonRpc.error(JsonRpc.idOf(body), e.code(), e.getMessage()));
      return;
    }
    boolean streaming = switch (req.method()) {
      case "message/stream", "tasks/resubscribe" -> true;
      case "message/send" -> acceptsEventStream(ctx);
      default -> false;
    };
    try {
      dispatch(ctx, req, principal, streaming);
    } catch (A2aException e) {
      respondError(ctx, req, e, streaming);
    } catch (ViewUnavailableException e) {
      respondError(ctx, req, new A2aException(A2aException.INTERNAL_ERROR, "Task view unavailable, retry shortly"),
          streaming);
    } catch (EventLogException e) {
      LOG.error("A2A: task log write failed: {}", e.getMessage());
      respondError(ctx, req, new A2aException(A2aException.INTERNAL_ERROR, "Task log unavailable"), streaming);
    }
  }

  private void dispatch(Context ctx, JsonRpc.Request req, String principal, boolean streaming) throws Exception {
    ObjectNode params = req.paramsObject();
    switch (req.method()) {
      case "message/send", "message/stream" -> send(ctx, req, params, principal, streaming);
      case "tasks/get" -> json(ctx, JsonRpc.result(req.id(), getTask(params, principal)));
      case "tasks/list" -> json(ctx, JsonRpc.result(req.id(), list(params, principal)));
      case "tasks/cancel" -> cancel(ctx, req, params, principal);
      case "tasks/resubscribe" -> resubscribe(ctx, req, params, principal);
      case "agent/authenticatedExtendedCard", "agent/getAuthenticatedExtendedCard" ->
          json(ctx, JsonRpc.result(req.id(), AgentCard.build(settings, endpoint(ctx), skills().values(), true)));
      case "pushNotification/set", "tasks/pushNotificationConfig/set" ->
          json(ctx, JsonRpc.result(req.id(), pushSet(params, principal)));
      case "pushNotification/get", "tasks/pushNotificationConfig/get" ->
          json(ctx, JsonRpc.result(req.id(), pushGet(params, principal)));
      case "pushNotification/list", "tasks/pushNotificationConfig/list" ->
          json(ctx, JsonRpc.result(req.id(), pushList(params, principal)));
      case "pushNotification/delete", "tasks/pushNotificationConfig/delete" ->
          json(ctx, JsonRpc.result(req.id(), pushDelete(params, principal)));
      default -> throw new A2aException(A2aException.METHOD_NOT_FOUND, "Method not found: " + req.method());
    }
  }

  // ---- message/send, message/stream ------------------------------------------------------------

  private void send(Context ctx, JsonRpc.Request req, ObjectNode params, String principal, boolean streaming)
      throws Exception {
    A2aMessages.Send send = A2aMessages.parseSend(params);
    if (send.taskId() != null) {
      resume(ctx, req, send, visible(send.taskId(), principal), streaming);
      return;
    }
    FlowConfig flow = A2aMessages.chooseSkill(send.skill(), skills());
    ObjectNode pushConfig = send.pushConfig() == null ? null : push.validate(send.pushConfig(), null);
    String id = launcher.start(flow, send.payload(), principal);
    if (pushConfig != null) {
      push.set(pending(id, principal), pushConfig);
    }
    if (streaming) {
      ObjectNode first = A2aTasks.submitted(id, Times.now());
      stream(ctx, req, id, List.of(first), new StreamMapper(id, id, 0, A2aTasks.SUBMITTED));
      return;
    }
    Integer historyLength = send.historyLength();
    if (Boolean.FALSE.equals(send.blocking())) {
      // read-your-writes: answer once the created event is folded, so that a tasks/get or
      // tasks/cancel sent right after this answer finds the task (after VISIBLE_WAIT_MS without
      // it, the answer is the submitted task as launched)
      CompletableFuture<TaskState> folded = awaitState(id, s -> true, VISIBLE_WAIT_MS);
      ctx.future(() -> folded.handle((s, notYet) -> {
        json(ctx, JsonRpc.result(req.id(), s != null ? A2aTasks.task(s, historyLength) : A2aTasks.submitted(id, Times.now())));
        return null;
      }));
      return;
    }
    CompletableFuture<TaskState> ended = awaitState(id, s -> A2aTasks.endsStream(A2aTasks.state(s.status())), 0);
    ctx.future(() -> ended.thenAccept(s -> json(ctx, JsonRpc.result(req.id(), A2aTasks.task(s, historyLength)))));
  }

  /**
   * {@code message/send} with the id of the caller's task: an input-required (paused) task resumes
   * with the message as its new input (the payload rule of a new task; x-pause sets it as
   * {@code payload.input} of the parked envelope) and the answer follows it like a new send
   * from there: SSE from {@code working} on, or one JSON answer (at once when not blocking, else at
   * the next terminal or interrupted state). Any other state: -32004.
   */
  private void resume(Context ctx, JsonRpc.Request req, A2aMessages.Send send, TaskState existing, boolean streaming)
      throws Exception {
    String state = A2aTasks.state(existing.status());
    if (!A2aTasks.INPUT_REQUIRED.equals(state)) {
      throw new A2aException(A2aException.UNSUPPORTED_OPERATION, A2aTasks.TERMINAL.contains(state)
          ? "Task " + send.taskId() + " is in a terminal state (" + state + ")"
          : "Task " + send.taskId() + " does not take further messages while " + state);
    }
    String id = existing.id();
    String contextId = A2aTasks.contextId(existing);
    launcher.resume(id, send.payload());
    ObjectNode working = A2aTasks.task(existing, send.historyLength());
    working.set("status", A2aTasks.status(id, contextId, TaskStatus.RUNNING, "Task resumed: new input", null,
        Times.now(), existing.seq() + 1));
    if (streaming) {
      // updates after the pause only: the resumed one (seq + 1) is what `working` already says
      stream(ctx, req, id, List.of(working), new StreamMapper(id, contextId, existing.seq() + 1, A2aTasks.WORKING));
      return;
    }
    if (Boolean.FALSE.equals(send.blocking())) {
      json(ctx, JsonRpc.result(req.id(), working));
      return;
    }
    long pausedAt = existing.seq();
    CompletableFuture<TaskState> ended = awaitState(id,
        s -> s.seq() > pausedAt + 1 && A2aTasks.endsStream(A2aTasks.state(s.status())), 0);
    ctx.future(() -> ended.thenAccept(s -> json(ctx, JsonRpc.result(req.id(), A2aTasks.task(s, send.historyLength())))));
  }

  /** A task just created, before its created event is folded (for push bookkeeping). */
  private static TaskState pending(String id, String owner) {
    return TaskState.announced(id, id, owner, TaskStatus.PENDING, "Task created", Times.now());
  }

  /**
   * Streams a task: the {@code first} results, then the mapper's events for every live update
   * and FLY event, until the mapper is done. Subscribes before reading the stored state so
   * nothing falls between the two.
   */
  private void stream(Context ctx, JsonRpc.Request req, String taskId, List<ObjectNode> first, StreamMapper mapper)
      throws Exception {
    new SseHandler(client -> {
      client.keepAlive();
      A2aStream s = new A2aStream(client, req.id(), writers);
      List<AutoCloseable> subs = new ArrayList<>();
      Runnable cleanup = () -> {
        open.remove(s);
        subs.forEach(A2aRoutes::closeQuietly);
      };
      client.onClose(cleanup);
      open.add(s);
      Consumer<List<ObjectNode>> emit = events -> {
        if (!events.isEmpty()) {
          s.send(events);
        }
        if (mapper.done()) {
          s.finish();
        }
      };
      // holding the stream's lock keeps the writer from sending the first event before the
      // subscriptions exist: a client that reacts to it (posts FLY) is then never too early
      synchronized (s) {
        s.send(first);
        subs.add(feed.subscribe(taskId, u -> emit.accept(mapper.onUpdate(u))));
        subs.add(fly.subscribe(taskId, f -> emit.accept(mapper.onFly(f))));
      }
      try {
        queries.get(taskId).ifPresent(st -> emit.accept(mapper.onState(st)));
      } catch (RuntimeException e) {
        LOG.debug("A2A stream of {}: state not readable yet ({}); live updates follow", taskId, e.toString());
      }
    }).handle(ctx);
  }

  // ---- tasks/get, tasks/list, tasks/cancel, tasks/resubscribe ----------------------------------

  private ObjectNode getTask(ObjectNode params, String principal) {
    String id = A2aMessages.requiredString(params, "id");
    Integer historyLength = A2aMessages.historyLength(params.get("historyLength"), "historyLength");
    return A2aTasks.task(visible(id, principal), historyLength);
  }

  private ObjectNode list(ObjectNode params, String principal) {
    int pageSize = DEFAULT_PAGE_SIZE;
    JsonNode size = params.get("pageSize");
    if (size != null && !size.isNull()) {
      if (!size.isIntegralNumber() || !size.canConvertToInt() || size.asInt() < 1 || size.asInt() > MAX_PAGE_SIZE) {
        throw A2aException.params("Invalid params: 'pageSize' must be an integer from 1 to " + MAX_PAGE_SIZE);
      }
      pageSize = size.asInt();
    }
    int offset = decodePageToken(A2aMessages.optionalString(params, "pageToken", "pageToken"));
    String stateFilter = A2aMessages.optionalString(params, "status", "status");
    TaskStatus gatewayStatus = null;
    if (stateFilter != null && !stateFilter.isEmpty()) {
      gatewayStatus = A2aTasks.gatewayStatus(stateFilter);
      if (gatewayStatus == null) {
        throw A2aException.params("Invalid params: unknown 'status' \"" + stateFilter + "\"");
      }
    }
    String contextId = A2aMessages.optionalString(params, "contextId", "contextId");
    Integer historyLength = A2aMessages.historyLength(params.get("historyLength"), "historyLength");
    TaskStatus wanted = gatewayStatus;
    Predicate<TaskState> filter = s -> (wanted == null || wanted == s.status())
        && (contextId == null || contextId.equals(A2aTasks.contextId(s)));
    TaskListing.Page page = listing.list(principal, filter, offset, pageSize);
    ObjectNode out = Json.MAPPER.createObjectNode();
    ArrayNode tasks = out.putArray("tasks");
    page.tasks().forEach(s -> tasks.add(A2aTasks.task(s, historyLength == null ? 0 : historyLength)));
    int next = page.offset() + page.tasks().size();
    out.put("nextPageToken", next < page.total() ? encodePageToken(next) : "");
    out.put("pageSize", pageSize);
    out.put("totalSize", page.total());
    return out;
  }

  static String encodePageToken(int offset) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(("offset:" + offset).getBytes(StandardCharsets.UTF_8));
  }

  static int decodePageToken(String token) {
    if (token == null || token.isEmpty()) {
      return 0;
    }
    try {
      String raw = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
      if (raw.startsWith("offset:")) {
        int n = Integer.parseInt(raw.substring(7));
        if (n >= 0) {
          return n;
        }
      }
    } catch (IllegalArgumentException e) {
      // falls through to the error below
    }
    throw A2aException.params("Invalid params: 'pageToken' is not a token this server issued");
  }

  private void cancel(Context ctx, JsonRpc.Request req, ObjectNode params, String principal) {
    String id = A2aMessages.requiredString(params, "id");
    TaskState s = visible(id, principal);
    if (A2aTasks.TERMINAL.contains(A2aTasks.state(s.status()))) {
      throw new A2aException(A2aException.TASK_NOT_CANCELABLE,
          "Task cannot be canceled: it is " + A2aTasks.state(s.status()));
    }
    CompletableFuture<TaskState> ended = awaitState(id, t -> t.isFinal(), CANCEL_WAIT_MS);
    commands.append(TaskEvent.canceled(id, "canceled by the A2A client"));
    ctx.future(() -> ended.thenAccept(t -> {
      String state = A2aTasks.state(t.status());
      if (A2aTasks.TERMINAL.contains(state) && !A2aTasks.CANCELED.equals(state)) {
        json(ctx, JsonRpc.error(req.id(), A2aException.TASK_NOT_CANCELABLE,
            "Task cannot be canceled: it became " + state + " first"));
      } else {
        json(ctx, JsonRpc.result(req.id(), A2aTasks.task(t, null)));
      }
    }));
  }

  private void resubscribe(Context ctx, JsonRpc.Request req, ObjectNode params, String principal) throws Exception {
    String id = A2aMessages.requiredString(params, "id");
    TaskState s = visible(id, principal);
    String state = A2aTasks.state(s.status());
    List<ObjectNode> first = new ArrayList<>();
    first.add(A2aTasks.task(s, 0));
    StreamMapper mapper = new StreamMapper(id, A2aTasks.contextId(s), s.seq() - 1, null);
    if (A2aTasks.endsStream(state)) {
      first.addAll(mapper.onState(s)); // already over: the closing events, then the end
    } else {
      mapper = new StreamMapper(id, A2aTasks.contextId(s), s.seq(), state);
    }
    stream(ctx, req, id, first, mapper);
  }

  // ---- push notifications -------------------------------------------------------------------

  private ObjectNode pushSet(ObjectNode params, String principal) {
    String taskId = A2aMessages.requiredString(params, "taskId");
    TaskState s = visible(taskId, principal);
    ObjectNode stored = push.set(s, push.validate(params.get("pushNotificationConfig"), taskId));
    return pushConfig(taskId, stored);
  }

  private ObjectNode pushGet(ObjectNode params, String principal) {
    String taskId = taskIdParam(params);
    visible(taskId, principal);
    String configId = A2aMessages.optionalString(params, "pushNotificationConfigId", "pushNotificationConfigId");
    return push.get(taskId, configId).map(c -> pushConfig(taskId, c)).orElseThrow(() -> A2aException.params(
        "Invalid params: no push notification config" + (configId == null ? "" : " '" + configId + "'")
            + " for task " + taskId));
  }

  private ArrayNode pushList(ObjectNode params, String principal) {
    String taskId = taskIdParam(params);
    visible(taskId, principal);
    ArrayNode out = Json.MAPPER.createArrayNode();
    push.list(taskId).forEach(c -> out.add(pushConfig(taskId, c)));
    return out;
  }

  private JsonNode pushDelete(ObjectNode params, String principal) {
    String taskId = taskIdParam(params);
    visible(taskId, principal);
    String configId = A2aMessages.requiredString(params, "pushNotificationConfigId");
    if (!push.delete(taskId, configId)) {
      throw A2aException.params("Invalid params: no push notification config '" + configId + "' for task " + taskId);
    }
    return NullNode.getInstance();
  }

  private static String taskIdParam(ObjectNode params) {
    return params.has("id") || !params.has("taskId") ? A2aMessages.requiredString(params, "id")
        : A2aMessages.requiredString(params, "taskId");
  }

  private static ObjectNode pushConfig(String taskId, ObjectNode config) {
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("taskId", taskId);
    out.set("pushNotificationConfig", config);
    return out;
  }

  // ---- helpers ------------------------------------------------------------------------------

  /** The task when it exists and belongs to the caller; TaskNotFound otherwise (no difference). */
  private TaskState visible(String id, String principal) {
    Optional<TaskState> s = queries.get(id);
    if (s.isEmpty() || !Objects.equals(s.get().owner(), principal)) {
      throw A2aException.taskNotFound(id);
    }
    return s.get();
  }

  /**
   * Completes with the task's state once it satisfies {@code until} (checked on every live
   * update and once right after subscribing); after {@code timeoutMs} (0 = no limit) with
   * whatever state it has then.
   */
  private CompletableFuture<TaskState> awaitState(String id, Predicate<TaskState> until, long timeoutMs) {
    CompletableFuture<TaskState> done = new CompletableFuture<>();
    Consumer<TaskUpdate> check = u -> {
      if (!done.isDone()) {
        TaskState fromUpdate = readState(id).filter(s -> s.seq() >= u.seq()).orElse(null);
        if (fromUpdate != null && until.test(fromUpdate)) {
          done.complete(fromUpdate);
        }
      }
    };
    AutoCloseable sub = feed.subscribe(id, u -> writers.execute(() -> check.accept(u)));
    done.whenComplete((s, e) -> closeQuietly(sub));
    readState(id).filter(until).ifPresent(done::complete);
    if (timeoutMs > 0) {
      timers.schedule(() -> {
        if (!done.isDone()) {
          readState(id).ifPresentOrElse(done::complete,
              () -> done.completeExceptionally(A2aException.taskNotFound(id)));
        }
      }, timeoutMs, TimeUnit.MILLISECONDS);
    }
    return done;
  }

  private Optional<TaskState> readState(String id) {
    try {
      return queries.get(id);
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }

  private static boolean acceptsEventStream(Context ctx) {
    Object original = ctx.attribute(A2aAcceptFilter.ORIGINAL_ACCEPT);
    String accept = original != null ? original.toString() : Objects.requireNonNullElse(ctx.header("Accept"), "");
    return accept.toLowerCase(java.util.Locale.ROOT).contains("text/event-stream");
  }

  private void respondError(Context ctx, JsonRpc.Request req, A2aException e, boolean streaming) {
    if (streaming && acceptsEventStream(ctx)) {
      try {
        new SseHandler(client -> {
          client.keepAlive();
          A2aStream s = new A2aStream(client, req.id(), writers);
          s.sendError(e);
          s.finish();
        }).handle(ctx);
        return;
      } catch (Exception failed) {
        LOG.debug("A2A: could not answer an error as SSE: {}", failed.toString());
      }
    }
    json(ctx, JsonRpc.error(req.id(), e.code(), e.getMessage()));
  }

  private static void json(Context ctx, ObjectNode response) {
    ctx.status(HttpStatus.OK).contentType("application/json").result(Json.write(response));
  }

  @Override
  public void close() {
    timers.shutdownNow();
    writers.shutdownNow();
    push.close();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // unsubscribing cannot fail in a way the client could act on
    }
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }
}

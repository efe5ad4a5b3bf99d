package io.taskmesh.gateway.ui;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.javalin.config.JavalinConfig;
import io.javalin.http.BadRequestResponse;
import io.javalin.http.Context;
import io.javalin.http.ForbiddenResponse;
import io.javalin.http.HttpStatus;
import io.javalin.http.NotFoundResponse;
import io.javalin.http.sse.SseHandler;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.http.JavalinSseSink;
import io.taskmesh.gateway.http.RequestBodies;
import io.taskmesh.gateway.launch.FlowRegistry;
import io.taskmesh.gateway.launch.TaskLauncher;
import io.taskmesh.gateway.launch.ToolCalls;
import io.taskmesh.schemas.FlowConfig;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.sse.SsePolicy;
import io.taskmesh.servicekit.sse.SseWriter;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import io.taskmesh.servicekit.sse.SseWriters;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * The dashboard ({@code /ui/}, api and testing modes): static HTML, CSS and JavaScript from this
 * jar, plus what a browser needs beside the REST routes: the flows with their input schemas, a live
 * feed of the caller's tasks ({@code GET /tasks/stream}), and a session cookie, because a browser's
 * {@code EventSource} cannot send an {@code Authorization} header.
 *
 * <p>Auth is the MCP auth of every other client route. The page asks for the token (API key or
 * OAuth access token) in a form, keeps it in {@code sessionStorage} and sends it as a bearer header
 * on every fetch; {@code POST /ui/session} with that header sets it as a short-lived {@code
 * HttpOnly}, {@code SameSite=Strict} cookie that only the GET event streams ({@code /stream/{id}},
 * {@code /tasks/stream}, {@code /ui/mesh/stream}) accept in place of the header. The cookie holds
 * an opaque session id ({@link UiSessions}), never the token: a cookie that leaks (a log, a proxy)
 * gives at most the event streams for 15 minutes, not the key to every route. The session lives on
 * the replica that opened it, so several replicas behind one URL need sticky sessions for the
 * dashboard's streams.
 */
public final class UiRoutes implements AutoCloseable {
  /** The cookie the event streams accept in place of the Authorization header. */
  public static final String COOKIE = "taskmesh_ui_token";

  /** Lifetime of the cookie; the page renews it well before (every 5 minutes). */
  static final int COOKIE_SECONDS = (int) UiSessions.TTL.toSeconds();

  private static final String RESOURCES = "/io/taskmesh/gateway/ui/";
  private static final Pattern FILE = Pattern.compile("[a-z0-9-]+\\.(html|css|js|svg)");
  private static final Map<String, String> TYPES =
      Map.of(
          "html", "text/html; charset=utf-8",
          "css", "text/css; charset=utf-8",
          "js", "text/javascript; charset=utf-8",
          "svg", "image/svg+xml");

  private final FlowRegistry flows;
  private final TaskLauncher launcher;
  private final UpdateFeed feed;
  private final TaskQueries queries;
  private final Function<Context, String> owner;
  private final BiPredicate<TaskState, String> ownedBy;
  private final boolean authEnabled;

  /**
   * Whether a principal may read replay-eval reports, which hold every owner's envelopes: only one
   * who sees every task anyway (no client auth, or the gateway's one static key); never a caller
   * with their own identity (OAuth), or reports would show them other clients' tasks.
   */
  private final Predicate<String> readsEveryOwner;

  private final UiSessions sessions;

  /** Where replay-eval writes its reports ({@code SVC_UI_EVALS_DIR}); null: none to show. */
  private final java.nio.file.Path evalsDir;

  private static final Pattern EVAL_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,199}");
  private final SseWriters writers = new SseWriters("ui-sse", 1, SsePolicy.TASK_STREAM);

  /** How often an update of a task the view does not show yet is checked again. */
  private static final int OWNER_TRIES = 5;

  private static final long OWNER_RETRY_MS = 200;

  /** Owner checks of the task list may ask another replica: off the feed's thread, in order. */
  private final ScheduledExecutorService ownerChecks = Threads.scheduler("ui-task-list");

  public UiRoutes(
      FlowRegistry flows,
      TaskLauncher launcher,
      UpdateFeed feed,
      TaskQueries queries,
      Function<Context, String> owner,
      BiPredicate<TaskState, String> ownedBy,
      boolean authEnabled,
      UiSessions sessions,
      java.nio.file.Path evalsDir,
      Predicate<String> readsEveryOwner) {
    this.flows = flows;
    this.launcher = launcher;
    this.feed = feed;
    this.queries = queries;
    this.owner = owner;
    this.ownedBy = ownedBy;
    this.authEnabled = authEnabled;
    this.sessions = sessions;
    this.evalsDir = evalsDir;
    this.readsEveryOwner = readsEveryOwner;
  }

  /** Must come before {@code GET /tasks/{id}}: Javalin takes the first route that matches. */
  public void mount(JavalinConfig cfg) {
    cfg.routes.get("/ui/", ctx -> file(ctx, "index.html"));
    cfg.routes.get("/ui/flows", this::flowList);
    cfg.routes.post("/ui/flows/{name}/start", this::startSkill);
    cfg.routes.post("/ui/session", this::openSession);
    cfg.routes.delete("/ui/session", this::closeSession);
    cfg.routes.get("/ui/evals", this::evalList);
    cfg.routes.get("/ui/evals/{id}", this::evalReport);
    cfg.routes.get("/ui/{file}", ctx -> file(ctx, ctx.pathParam("file")));
    cfg.routes.get("/tasks/stream", this::taskListStream);
  }

  /**
   * The dashboard session a request presents in place of an {@code Authorization} header: the
   * cookie {@link #COOKIE}, read only on the event streams (GET {@code /stream/{id}}, {@code
   * /tasks/stream}, {@code /ui/mesh/stream}) and only without a header; null otherwise. No other
   * route takes the cookie, so a page elsewhere cannot act with it.
   */
  public static String sessionId(Context ctx) {
    if (ctx.header("Authorization") != null || !"GET".equals(ctx.method().name())) {
      return null;
    }
    String path = ctx.path();
    if (!path.startsWith("/stream/")
        && !path.equals("/tasks/stream")
        && !path.equals("/ui/mesh/stream")) {
      return null;
    }
    String cookie = ctx.cookie(COOKIE);
    return cookie == null || cookie.isBlank() ? null : cookie;
  }

  private static void file(Context ctx, String name) throws IOException {
    if (!FILE.matcher(name).matches()) {
      throw new NotFoundResponse("no such dashboard file: " + name);
    }
    try (InputStream in = UiRoutes.class.getResourceAsStream(RESOURCES + name)) {
      if (in == null) {
        throw new NotFoundResponse("no such dashboard file: " + name);
      }
      String ext = name.substring(name.lastIndexOf('.') + 1);
      ctx.contentType(TYPES.get(ext))
          .header("Cache-Control", "no-cache")
          .header("X-Content-Type-Options", "nosniff")
          .header(
              "Content-Security-Policy",
              "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
          .result(in.readAllBytes());
    }
  }

  /**
   * {@code GET /ui/evals}: the replay-eval reports in {@code SVC_UI_EVALS_DIR}, newest first (at
   * most 200). A report holds envelopes of every owner, as the log does: behind the dashboard's
   * auth, like the flows.
   */
  private void evalList(Context ctx) throws IOException {
    requireEveryOwnerReader(ctx);
    List<Map<String, Object>> out = new ArrayList<>();
    if (evalsDir != null && java.nio.file.Files.isDirectory(evalsDir)) {
      List<java.nio.file.Path> files;
      try (var listing = java.nio.file.Files.list(evalsDir)) {
        files =
            listing
                .filter(f -> f.getFileName().toString().endsWith(".json"))
                .sorted(
                    java.util.Comparator.comparing(
                            (java.nio.file.Path f) -> f.toFile().lastModified())
                        .reversed())
                .limit(200)
                .toList();
      }
      for (java.nio.file.Path f : files) {
        String name = f.getFileName().toString();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", name.substring(0, name.length() - ".json".length()));
        m.put("modified", java.time.Instant.ofEpochMilli(f.toFile().lastModified()).toString());
        out.add(m);
      }
    }
    ctx.json(Map.of("evals", out));
  }

  private void requireEveryOwnerReader(Context ctx) {
    String principal = owner.apply(ctx); // 401 first
    if (!readsEveryOwner.test(principal)) {
      throw new ForbiddenResponse(
          "replay-eval reports hold every client's envelopes: they are served without client auth"
              + " or to the gateway's API key, not to a signed-in user");
    }
  }

  /** {@code GET /ui/evals/{id}}: one replay-eval report as written, streamed from its file. */
  private void evalReport(Context ctx) throws IOException {
    requireEveryOwnerReader(ctx);
    String id = ctx.pathParam("id");
    if (evalsDir == null || !EVAL_ID.matcher(id).matches() || id.contains("..")) {
      throw new NotFoundResponse("no replay-eval report " + id);
    }
    java.nio.file.Path file = evalsDir.resolve(id + ".json");
    if (!java.nio.file.Files.isRegularFile(file)) {
      throw new NotFoundResponse("no replay-eval report " + id);
    }
    ctx.contentType("application/json");
    ctx.result(java.nio.file.Files.newInputStream(file));
  }

  /** {@code GET /ui/flows}: the flows offered as tools, with description and input schema. */
  private void flowList(Context ctx) {
    String unused = owner.apply(ctx); // only for its 401: every flow is listed to every owner
    List<Map<String, Object>> out = new ArrayList<>();
    for (FlowConfig flow : flows.all().values()) {
      if (!flow.isTool() && !flow.isA2aSkill()) {
        continue;
      }
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", flow.name());
      m.put("description", Objects.requireNonNullElse(flow.description(), ""));
      List<String> route = new ArrayList<>();
      route.add(flow.entrypoint());
      if (flow.routeNext() != null) {
        route.addAll(flow.routeNext());
      }
      m.put("route", route);
      if (flow.isTool()) {
        m.put("inputSchema", flow.mcp().path("inputSchema"));
      } else {
        // only an A2A skill: the page starts it with POST /ui/flows/{name}/start
        m.put("inputSchema", Map.of("type", "object"));
        m.put("a2a", true);
      }
      out.add(m);
    }
    out.sort((a, b) -> a.get("name").toString().compareTo(b.get("name").toString()));
    ctx.json(Map.of("flows", out));
  }

  /**
   * {@code POST /ui/flows/{name}/start}: starts a flow that is only an A2A skill, with the body (a
   * JSON object) as its input and the caller of the REST routes as the owner, so the page that
   * started it (and {@code ./taskmesh call}) can follow it whatever A2A's own auth says. Tools
   * start with {@code POST /tools/call}, which checks their schema.
   */
  private void startSkill(Context ctx) {
    String principal = owner.apply(ctx); // 401 before the body is read
    String name = ctx.pathParam("name");
    FlowConfig flow =
        flows
            .flow(name)
            .filter(f -> f.isA2aSkill() && !f.isTool())
            .orElseThrow(
                () ->
                    new NotFoundResponse(
                        "no flow '"
                            + name
                            + "' served only as an A2A skill (tools: POST /tools/call)"));
    if (ctx.bodyAsBytes().length > ToolCalls.MAX_ARGUMENT_BYTES) {
      throw new BadRequestResponse("the input is over " + ToolCalls.MAX_ARGUMENT_BYTES + " bytes");
    }
    JsonNode input = RequestBodies.object(RequestBodies.strictJson(ctx));
    String id = launcher.start(flow, input, principal);
    ctx.status(HttpStatus.CREATED).json(Map.of("task_id", id));
  }

  /**
   * {@code POST /ui/session}: checks the bearer header and opens a session of its principal, whose
   * id becomes the streams' cookie.
   */
  private void openSession(Context ctx) {
    String principal = owner.apply(ctx); // 401 with the challenge when missing or wrong
    if (authEnabled) {
      ctx.header("Set-Cookie", cookie(ctx, sessions.open(principal), COOKIE_SECONDS));
    }
    ctx.status(HttpStatus.NO_CONTENT);
  }

  /** {@code DELETE /ui/session}: the session ends on the server and the cookie is cleared. */
  private void closeSession(Context ctx) {
    sessions.close(ctx.cookie(COOKIE));
    ctx.header("Set-Cookie", cookie(ctx, "", 0));
    ctx.status(HttpStatus.NO_CONTENT);
  }

  private static String cookie(Context ctx, String value, int maxAge) {
    boolean https =
        "https".equals(ctx.scheme()) || "https".equalsIgnoreCase(ctx.header("X-Forwarded-Proto"));
    return COOKIE
        + "="
        + value
        + "; Path=/; Max-Age="
        + maxAge
        + "; HttpOnly; SameSite=Strict"
        + (https ? "; Secure" : "");
  }

  /**
   * {@code GET /tasks/stream}: an {@code update} event for every live update of the caller's tasks
   * (new tasks included), the update plus its task's {@code flow}; no history (read {@code GET
   * /tasks} after opening it) and never closed by the server. An anonymous caller gets the
   * anonymous tasks only, never one an authenticated client of another protocol owns.
   */
  private void taskListStream(Context ctx) throws Exception {
    String who = owner.apply(ctx);
    feedStream(
        ctx,
        writers,
        "tasks",
        writer -> {
          Map<String, Listed> known = new BoundedCache<>(10_000);
          return feed.subscribeAll(
              u -> ownerChecks.execute(() -> forward(u, who, known, writer, 1)));
        });
  }

  /**
   * A dashboard event stream fed by one subscription ({@code /tasks/stream}, {@code
   * /ui/mesh/stream}): opened with the comment {@code greeting}, unsubscribed when the client goes.
   */
  static void feedStream(
      Context ctx,
      SseWriters writers,
      String greeting,
      Function<SseWriter, AutoCloseable> subscribe)
      throws Exception {
    new SseHandler(
            client -> {
              client.keepAlive();
              SseWriter writer = writers.open(new JavalinSseSink(client), () -> {});
              AutoCloseable sub = subscribe.apply(writer);
              client.onClose(
                  () -> {
                    writer.close();
                    Subscriptions.closeQuietly(sub);
                  });
              writer.comment(greeting);
            })
        .handle(ctx);
  }

  /**
   * Sends an update when its task is the caller's, with the task's {@code flow} added (an update
   * does not carry it, and a list is read and filtered by it). The task is looked up once per
   * stream.
   */
  private void forward(
      TaskUpdate u, String who, Map<String, Listed> known, SseWriter writer, int attempt) {
    if (writer.isClosed()) {
      return;
    }
    Listed listed = known.get(u.id());
    if (listed == null) {
      TaskState state;
      try {
        state = queries.get(u.id()).orElse(null);
      } catch (RuntimeException e) {
        state = null; // the view is moving
      }
      if (state == null) {
        // a new task's first update can come before its state is readable: ask again shortly
        if (attempt < OWNER_TRIES && !ownerChecks.isShutdown()) {
          ownerChecks.schedule(
              () -> forward(u, who, known, writer, attempt + 1),
              OWNER_RETRY_MS,
              TimeUnit.MILLISECONDS);
        }
        return;
      }
      listed = new Listed(ownedBy.test(state, who), state.flow());
      known.put(u.id(), listed);
    }
    if (!listed.visible()) {
      return;
    }
    ObjectNode data = Json.MAPPER.valueToTree(u);
    data.put("flow", listed.flow());
    writer.send(new Frame("update", Json.write(data), null, false, false));
  }

  private record Listed(boolean visible, String flow) {}

  /** The open task-list streams, for the gateway's shutdown drain. */
  public SseWriters writers() {
    return writers;
  }

  @Override
  public void close() {
    ownerChecks.shutdownNow();
    writers.close();
  }

  /** The most recently used entries up to a limit, so a long-open page costs bounded memory. */
  private static final class BoundedCache<K, V> extends LinkedHashMap<K, V> {
    private final int limit;

    BoundedCache(int limit) {
      super(16, 0.75f, true);
      this.limit = limit;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
      return size() > limit;
    }
  }
}

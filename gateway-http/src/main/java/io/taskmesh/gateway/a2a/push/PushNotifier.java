package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aException;
import io.taskmesh.gateway.a2a.model.A2aMessages;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.a2a.model.A2aTask;
import io.taskmesh.gateway.a2a.model.A2aTasks;
import io.taskmesh.gateway.follow.Subscriptions;
import io.taskmesh.gateway.http.SsrfGuard;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push notifications ({@code pushNotification/*}, {@code tasks/pushNotificationConfig/*} and {@code
 * configuration.pushNotificationConfig} of a send): for every change of a task's A2A state after a
 * config is registered (progress within a state is not pushed), the gateway POSTs the task to each
 * registered URL in the form of the protocol the config was registered with (0.3: the {@code Task}
 * object; 1.0: a {@code StreamResponse} holding the task), with the config's {@code token} in
 * {@code X-A2A-Notification-Token} and, when {@code authentication} is given, {@code Authorization:
 * <first scheme> <credentials>}. A failed POST (connection error, timeout, 429 or 5xx) is retried
 * after each of {@link Retry#backoff()} while {@link Retry#within()} has not passed since the first
 * attempt; other 4xx answers are not retried.
 *
 * <p>Targets: only {@code http}/{@code https} URLs whose host resolves to public addresses;
 * loopback, private (RFC 1918, fc00::/7), link-local, wildcard, multicast and CGNAT addresses are
 * refused unless {@code SVC_A2A_PUSH_ALLOW_PRIVATE=true}. The check runs when the config is set and
 * again before each POST (a DNS answer may change).
 *
 * <p>Configs live in a {@link PushConfigStore} that every replica follows, so each replica knows
 * every config and watches the task's updates (every replica sees every update); only the replica
 * that owns the task's key in the fold ({@link TaskQueries#ownsLocally}) posts, so an update is
 * delivered once, not once per replica.
 */
public final class PushNotifier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PushNotifier.class);
  static final String TOKEN_HEADER = "X-A2A-Notification-Token";

  /** The payload form of configs registered over A2A 0.3: the Task object itself. */
  public static final String FORM_03 = "a2a-0.3";

  /** While the fold rebalances nobody knows the owner: ask again this often, this many times. */
  private static final long OWNER_RETRY_MS = 500;

  private static final int OWNER_RETRIES = 60;

  /**
   * How failed POSTs are retried: after each wait of {@code backoff} in turn, while {@code within}
   * has not passed since the first attempt; each attempt waits at most {@code timeout}.
   */
  public record Retry(List<Duration> backoff, Duration within, Duration timeout) {
    public static final Retry DEFAULT =
        new Retry(
            List.of(
                Duration.ofMillis(500),
                Duration.ofSeconds(1),
                Duration.ofSeconds(2),
                Duration.ofSeconds(4)),
            Duration.ofSeconds(30),
            Duration.ofSeconds(10));

    public Retry {
      backoff = List.copyOf(backoff);
    }
  }

  private final TaskQueries queries;
  private final UpdateFeed feed;
  private final boolean allowPrivate;
  private final PushConfigStore store;
  private final Retry retry;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();
  private final ScheduledExecutorService scheduler = Threads.scheduler("a2a-push", 2);
  private final Duration endedRetention;

  /**
   * How long the configs of an ended task stay readable (GetTaskPushNotificationConfig after the
   * end) before they are removed.
   */
  static final Duration ENDED_RETENTION = Duration.ofMinutes(10);

  private final Map<String, Watch> watches = new ConcurrentHashMap<>();
  private final Map<String, UnaryOperator<JsonNode>> forms =
      new ConcurrentHashMap<>(Map.of(FORM_03, UnaryOperator.identity()));

  /** The configs of one task and its feed subscription. */
  private static final class Watch {
    final String taskId;
    final Map<String, PushConfigStore.Entry> configs = new LinkedHashMap<>();
    AutoCloseable subscription;
    A2aState lastState;
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);

    Watch(String taskId) {
      this.taskId = taskId;
    }
  }

  public PushNotifier(
      TaskQueries queries,
      UpdateFeed feed,
      boolean allowPrivate,
      PushConfigStore store,
      Retry retry) {
    this(queries, feed, allowPrivate, store, retry, ENDED_RETENTION);
  }

  /**
   * @param endedRetention how long the configs of a task stay after the replica that delivers for
   *     it has sent (or given up) the notification of its terminal state; then that replica removes
   *     them from the store (tombstones on the compacted topic), so the topic does not keep every
   *     config ever made
   */
  public PushNotifier(
      TaskQueries queries,
      UpdateFeed feed,
      boolean allowPrivate,
      PushConfigStore store,
      Retry retry,
      Duration endedRetention) {
    this.endedRetention = endedRetention;
    this.queries = queries;
    this.feed = feed;
    this.allowPrivate = allowPrivate;
    this.store = store;
    this.retry = retry;
    store.follow(
        new PushConfigStore.Listener() {
          @Override
          public void stored(PushConfigStore.Entry entry) {
            apply(entry);
          }

          @Override
          public void removed(String taskId, String configId) {
            unapply(taskId, configId);
          }
        });
  }

  /**
   * Another binding's payload: {@code form} names it in stored configs, {@code payload} maps the
   * 0.3 Task to it.
   */
  public void addForm(String form, UnaryOperator<JsonNode> payload) {
    forms.put(form, payload);
  }

  /** Stores a config checked by {@link #validate} for every replica; returns it as stored. */
  public ObjectNode set(TaskState task, ObjectNode stored, String form) {
    PushConfigStore.Entry entry =
        new PushConfigStore.Entry(task.id(), stored, form, A2aState.of(task.status()).wire());
    store.put(entry);
    apply(entry); // read-your-writes on this replica; the store's echo is the same entry
    return stored;
  }

  private void apply(PushConfigStore.Entry entry) {
    Watch w = watches.computeIfAbsent(entry.taskId(), Watch::new);
    synchronized (w) {
      w.configs.put(entry.configId(), entry);
      if (w.lastState == null) {
        w.lastState = A2aState.fromWire(entry.state());
      }
      if (w.subscription == null && !w.lastState.isTerminal()) {
        w.subscription = feed.subscribe(entry.taskId(), u -> onUpdate(w, u));
      }
    }
  }

  private boolean unapply(String taskId, String configId) {
    Watch w = watches.get(taskId);
    if (w == null) {
      return false;
    }
    synchronized (w) {
      boolean removed = w.configs.remove(configId) != null;
      if (w.configs.isEmpty()) {
        Subscriptions.closeQuietly(w.subscription);
        w.subscription = null;
        watches.remove(taskId, w);
      }
      return removed;
    }
  }

  public Optional<ObjectNode> get(String taskId, String configId) {
    Watch w = watches.get(taskId);
    if (w == null) {
      return Optional.empty();
    }
    synchronized (w) {
      if (configId == null) {
        return w.configs.values().stream().findFirst().map(PushConfigStore.Entry::config);
      }
      return Optional.ofNullable(w.configs.get(configId)).map(PushConfigStore.Entry::config);
    }
  }

  public List<ObjectNode> list(String taskId) {
    Watch w = watches.get(taskId);
    if (w == null) {
      return List.of();
    }
    synchronized (w) {
      return w.configs.values().stream().map(PushConfigStore.Entry::config).toList();
    }
  }

  public boolean delete(String taskId, String configId) {
    if (get(taskId, configId).isEmpty() || configId == null) {
      return false;
    }
    store.remove(taskId, configId);
    unapply(taskId, configId); // the store may have told this replica already
    return true;
  }

  /** Feed thread: never blocks; the POSTs of one task run in order on the scheduler. */
  private void onUpdate(Watch w, TaskUpdate u) {
    A2aState state = A2aState.of(u.status());
    synchronized (w) {
      if (state == w.lastState || w.configs.isEmpty()) {
        return;
      }
      w.lastState = state;
      List<PushConfigStore.Entry> targets = List.copyOf(w.configs.values());
      if (state.isTerminal()) {
        Subscriptions.closeQuietly(w.subscription);
        w.subscription = null;
      }
      w.chain =
          w.chain
              .thenComposeAsync(v -> owner(u.id(), 0), scheduler)
              .thenComposeAsync(
                  mine -> {
                    if (!mine) {
                      return CompletableFuture.completedFuture(null);
                    }
                    JsonNode task = Json.tree(taskBody(u));
                    CompletableFuture<Void> delivered =
                        CompletableFuture.allOf(
                            targets.stream()
                                .map(
                                    c ->
                                        post(
                                            c.config(),
                                            forms
                                                .getOrDefault(c.form(), UnaryOperator.identity())
                                                .apply(task),
                                            0,
                                            System.nanoTime()))
                                .toArray(CompletableFuture[]::new));
                    return state.isTerminal()
                        ? delivered.thenRun(() -> forgetLater(w.taskId, targets))
                        : delivered;
                  },
                  scheduler);
    }
  }

  /**
   * After {@link #endedRetention}, removes the configs an ended task was notified with from the
   * store (every replica forgets them as the removal arrives). Only the delivering replica does it,
   * so each config gets one tombstone; a config registered after the end is never notified and is
   * kept. A restart before the retention is over forgets the plan, and those configs stay.
   */
  private void forgetLater(String taskId, List<PushConfigStore.Entry> notified) {
    try {
      scheduler.schedule(
          () ->
              notified.forEach(
                  c -> {
                    try {
                      if (get(taskId, c.configId()).isPresent()) {
                        store.remove(taskId, c.configId());
                        unapply(taskId, c.configId());
                      }
                    } catch (RuntimeException e) {
                      LOG.warn(
                          "push: config {} of ended task {} not removed: {}",
                          c.configId(),
                          taskId,
                          e.toString());
                    }
                  }),
          endedRetention.toMillis(),
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException closing) {
      LOG.debug("push: closing, the configs of task {} are kept", taskId);
    }
  }

  /**
   * Whether this replica delivers for the task: the owner of its key; asks again while that is
   * unknown.
   */
  private CompletableFuture<Boolean> owner(String taskId, int asked) {
    Optional<Boolean> owns = queries.ownsLocally(taskId);
    if (owns.isPresent()) {
      return CompletableFuture.completedFuture(owns.get());
    }
    if (asked >= OWNER_RETRIES) {
      LOG.warn(
          "push for task {}: its owner stayed unknown for {} s; this replica does not deliver",
          taskId,
          OWNER_RETRIES * OWNER_RETRY_MS / 1000);
      return CompletableFuture.completedFuture(false);
    }
    CompletableFuture<Boolean> next = new CompletableFuture<>();
    scheduler.schedule(
        () -> owner(taskId, asked + 1).whenComplete((v, e) -> next.complete(e == null && v)),
        OWNER_RETRY_MS,
        TimeUnit.MILLISECONDS);
    return next;
  }

  private A2aTask taskBody(TaskUpdate u) {
    try {
      Optional<TaskState> s = queries.get(u.id());
      if (s.isPresent() && s.get().seq() == u.seq()) {
        return A2aTasks.task(s.get(), 0);
      }
      if (s.isPresent() && s.get().seq() > u.seq()) {
        // the task moved on before this push went out: the Task as of this update
        return A2aTasks.task(s.get(), 0)
            .withoutArtifacts()
            .withStatus(A2aTasks.status(u.id(), A2aTasks.contextId(s.get()), u));
      }
    } catch (RuntimeException e) {
      LOG.debug("push: task {} not readable, sending the update only: {}", u.id(), e.toString());
    }
    return A2aTask.bare(u.id(), u.id(), A2aTasks.status(u.id(), u.id(), u));
  }

  /** One POST with retries; completes (never exceptionally) when delivered or given up. */
  private CompletableFuture<Void> post(
      ObjectNode config, JsonNode body, int attempt, long startNanos) {
    URI url = URI.create(config.get("url").asText());
    try {
      checkTarget(url, allowPrivate);
    } catch (A2aException e) {
      LOG.warn("push to {} skipped: {}", url, e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    HttpRequest.Builder req =
        HttpRequest.newBuilder(url)
            .timeout(retry.timeout())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    JsonNode token = config.get("token");
    if (token != null && token.isTextual()) {
      req.header(TOKEN_HEADER, token.asText());
    }
    JsonNode auth = config.get("authentication");
    if (auth != null
        && auth.isObject()
        && auth.path("credentials").isTextual()
        && auth.path("schemes").size() > 0) {
      req.header(
          "Authorization",
          auth.get("schemes").get(0).asText() + " " + auth.get("credentials").asText());
    }
    return http.sendAsync(req.build(), HttpResponse.BodyHandlers.discarding())
        .handle(
            (resp, err) -> {
              boolean again = err != null || resp.statusCode() == 429 || resp.statusCode() >= 500;
              if (!again && resp.statusCode() >= 300) {
                LOG.warn("push to {} refused with {}; not retried", url, resp.statusCode());
              }
              return again;
            })
        .thenCompose(
            again -> {
              if (!again) {
                return CompletableFuture.completedFuture(null);
              }
              long elapsed = System.nanoTime() - startNanos;
              if (attempt >= retry.backoff().size()
                  || elapsed + retry.backoff().get(attempt).toNanos() > retry.within().toNanos()) {
                LOG.warn("push to {} failed {} times; giving up", url, attempt + 1);
                return CompletableFuture.completedFuture(null);
              }
              CompletableFuture<Void> next = new CompletableFuture<>();
              scheduler.schedule(
                  () ->
                      post(config, body, attempt + 1, startNanos)
                          .whenComplete((v, e) -> next.complete(null)),
                  retry.backoff().get(attempt).toMillis(),
                  TimeUnit.MILLISECONDS);
              return next;
            });
  }

  /** A config as the client sent it, checked; {@code id} defaults to a new UUID. */
  public ObjectNode validate(JsonNode config, String taskId) {
    if (config == null || !config.isObject()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig' (an object) is required");
    }
    JsonNode url = config.get("url");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' (a string) is required");
    }
    URI uri;
    try {
      uri = new URI(url.asText());
    } catch (URISyntaxException e) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' is not a URL");
    }
    checkTarget(uri, allowPrivate);
    ObjectNode out = Json.MAPPER.createObjectNode();
    String id = A2aMessages.optionalString(config, "id", "pushNotificationConfig.id");
    out.put("id", id == null || id.isBlank() ? UUID.randomUUID().toString() : id);
    out.put("url", uri.toString());
    String token = A2aMessages.optionalString(config, "token", "pushNotificationConfig.token");
    if (token != null) {
      out.put("token", token);
    }
    JsonNode auth = config.get("authentication");
    if (auth != null && !auth.isNull()) {
      JsonNode schemes = auth.get("schemes");
      if (!auth.isObject() || schemes == null || !schemes.isArray()) {
        throw A2aException.params(
            "Invalid params: 'pushNotificationConfig.authentication.schemes' must be a list");
      }
      for (JsonNode s : schemes) {
        if (!s.isTextual()) {
          throw A2aException.params(
              "Invalid params: 'pushNotificationConfig.authentication.schemes' must hold strings");
        }
      }
      A2aMessages.optionalString(
          auth, "credentials", "pushNotificationConfig.authentication.credentials");
      out.set("authentication", auth.deepCopy());
    }
    return out;
  }

  /** http(s) only; public addresses only unless allowed. */
  public static void checkTarget(URI uri, boolean allowPrivate) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must be http or https, not '"
              + scheme
              + "'");
    }
    String host = uri.getHost();
    if (host == null || host.isBlank()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' has no host");
    }
    if (uri.getUserInfo() != null) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must not carry user info");
    }
    if (allowPrivate) {
      return;
    }
    try {
      SsrfGuard.requirePublic(host, false);
    } catch (SsrfGuard.Refused e) {
      throw A2aException.params(
          "Invalid params: 'pushNotificationConfig.url' must target a public address: "
              + e.getMessage());
    }
  }

  @Override
  public void close() {
    watches.values().forEach(w -> Subscriptions.closeQuietly(w.subscription));
    scheduler.shutdownNow();
  }
}

package io.taskmesh.gateway.a2a;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Push notifications ({@code pushNotification/*}, {@code tasks/pushNotificationConfig/*} and
 * {@code configuration.pushNotificationConfig} of a send): for every change of a task's A2A state
 * after a config is registered (progress within a state is not pushed), the gateway POSTs the
 * task's {@code Task} object as JSON to each registered URL, with the config's {@code token} in
 * {@code X-A2A-Notification-Token} and, when {@code authentication} is given, {@code
 * Authorization: <first scheme> <credentials>}. A failed POST (connection error, timeout, 429 or
 * 5xx) is retried 3 more times after 0.5 s, 1 s and 2 s; other 4xx answers are not retried.
 *
 * <p>Targets: only {@code http}/{@code https} URLs whose host resolves to public addresses; loopback,
 * private (RFC 1918, fc00::/7), link-local, wildcard, multicast and CGNAT addresses are refused
 * unless {@code SVC_A2A_PUSH_ALLOW_PRIVATE=true}. The check runs when the config is set and again
 * before each POST (a DNS answer may change).
 *
 * <p>Configs live in this replica's memory: they are lost on restart and are sent by the replica
 * that registered them (every replica sees every update, so that replica pushes wherever the task
 * runs).
 */
final class PushNotifier implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PushNotifier.class);
  static final String TOKEN_HEADER = "X-A2A-Notification-Token";
  static final long[] BACKOFF_MS = {500, 1000, 2000};

  private final TaskQueries queries;
  private final UpdateFeed feed;
  private final boolean allowPrivate;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
      .followRedirects(HttpClient.Redirect.NEVER).build();
  private final ScheduledExecutorService scheduler = Threads.scheduler("a2a-push", 2);
  private final Map<String, Watch> watches = new ConcurrentHashMap<>();

  /** The configs of one task and its feed subscription. */
  private final class Watch {
    final String taskId;
    final Map<String, ObjectNode> configs = new LinkedHashMap<>();
    AutoCloseable subscription;
    A2aState lastState;
    CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);

    Watch(String taskId) {
      this.taskId = taskId;
    }
  }

  PushNotifier(TaskQueries queries, UpdateFeed feed, boolean allowPrivate) {
    this.queries = queries;
    this.feed = feed;
    this.allowPrivate = allowPrivate;
  }

  /** Stores a config checked by {@link #validate}; returns it as stored. */
  ObjectNode set(TaskState task, ObjectNode stored) {
    Watch w = watches.computeIfAbsent(task.id(), Watch::new);
    synchronized (w) {
      w.configs.put(stored.get("id").asText(), stored);
      if (w.subscription == null && !A2aState.of(task.status()).isTerminal()) {
        w.lastState = A2aState.of(task.status());
        w.subscription = feed.subscribe(task.id(), u -> onUpdate(w, u));
      }
    }
    return stored;
  }

  Optional<ObjectNode> get(String taskId, String configId) {
    Watch w = watches.get(taskId);
    if (w == null) {
      return Optional.empty();
    }
    synchronized (w) {
      if (configId == null) {
        return w.configs.values().stream().findFirst();
      }
      return Optional.ofNullable(w.configs.get(configId));
    }
  }

  List<ObjectNode> list(String taskId) {
    Watch w = watches.get(taskId);
    if (w == null) {
      return List.of();
    }
    synchronized (w) {
      return List.copyOf(w.configs.values());
    }
  }

  boolean delete(String taskId, String configId) {
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

  /** Feed thread: never blocks; the POSTs of one task run in order on the scheduler. */
  private void onUpdate(Watch w, TaskUpdate u) {
    A2aState state = A2aState.of(u.status());
    List<ObjectNode> targets;
    synchronized (w) {
      if (state == w.lastState || w.configs.isEmpty()) {
        return;
      }
      w.lastState = state;
      targets = List.copyOf(w.configs.values());
      if (state.isTerminal()) {
        Subscriptions.closeQuietly(w.subscription);
        w.subscription = null;
      }
      w.chain = w.chain.thenComposeAsync(v -> {
        A2aTask body = taskBody(u);
        return CompletableFuture.allOf(targets.stream()
            .map(c -> post(c, body, 0)).toArray(CompletableFuture[]::new));
      }, scheduler);
    }
  }

  private A2aTask taskBody(TaskUpdate u) {
    try {
      Optional<TaskState> s = queries.get(u.id());
      if (s.isPresent() && s.get().seq() == u.seq()) {
        return A2aTasks.task(s.get(), 0);
      }
      if (s.isPresent() && s.get().seq() > u.seq()) {
        // the task moved on before this push went out: the Task as of this update
        return A2aTasks.task(s.get(), 0).withoutArtifacts()
            .withStatus(A2aTasks.status(u.id(), A2aTasks.contextId(s.get()), u));
      }
    } catch (RuntimeException e) {
      LOG.debug("push: task {} not readable, sending the update only: {}", u.id(), e.toString());
    }
    return A2aTask.bare(u.id(), u.id(), A2aTasks.status(u.id(), u.id(), u));
  }

  /** One POST with retries; completes (never exceptionally) when delivered or given up. */
  private CompletableFuture<Void> post(ObjectNode config, A2aTask body, int attempt) {
    URI url = URI.create(config.get("url").asText());
    try {
      checkTarget(url, allowPrivate);
    } catch (A2aException e) {
      LOG.warn("push to {} skipped: {}", url, e.getMessage());
      return CompletableFuture.completedFuture(null);
    }
    HttpRequest.Builder req = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(Json.write(body)));
    JsonNode token = config.get("token");
    if (token != null && token.isTextual()) {
      req.header(TOKEN_HEADER, token.asText());
    }
    JsonNode auth = config.get("authentication");
    if (auth != null && auth.isObject() && auth.path("credentials").isTextual() && auth.path("schemes").size() > 0) {
      req.header("Authorization", auth.get("schemes").get(0).asText() + " " + auth.get("credentials").asText());
    }
    return http.sendAsync(req.build(), HttpResponse.BodyHandlers.discarding()).handle((resp, err) -> {
      boolean retry = err != null || resp.statusCode() == 429 || resp.statusCode() >= 500;
      if (!retry && resp.statusCode() >= 300) {
        LOG.warn("push to {} refused with {}; not retried", url, resp.statusCode());
      }
      return retry;
    }).thenCompose(retry -> {
      if (!retry) {
        return CompletableFuture.completedFuture(null);
      }
      if (attempt >= BACKOFF_MS.length) {
        LOG.warn("push to {} failed {} times; giving up", url, attempt + 1);
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> next = new CompletableFuture<>();
      scheduler.schedule(() -> post(config, body, attempt + 1).whenComplete((v, e) -> next.complete(null)),
          BACKOFF_MS[attempt], TimeUnit.MILLISECONDS);
      return next;
    });
  }

  /** A config as the client sent it, checked; {@code id} defaults to a new UUID. */
  ObjectNode validate(JsonNode config, String taskId) {
    if (config == null || !config.isObject()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig' (an object) is required");
    }
    JsonNode url = config.get("url");
    if (url == null || !url.isTextual() || url.asText().isBlank()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' (a string) is required");
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
        throw A2aException.params("Invalid params: 'pushNotificationConfig.authentication.schemes' must be a list");
      }
      for (JsonNode s : schemes) {
        if (!s.isTextual()) {
          throw A2aException.params("Invalid params: 'pushNotificationConfig.authentication.schemes' must hold strings");
        }
      }
      A2aMessages.optionalString(auth, "credentials", "pushNotificationConfig.authentication.credentials");
      out.set("authentication", auth.deepCopy());
    }
    return out;
  }

  /** http(s) only; public addresses only unless allowed. */
  static void checkTarget(URI uri, boolean allowPrivate) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' must be http or https, not '" + scheme + "'");
    }
    String host = uri.getHost();
    if (host == null || host.isBlank()) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' has no host");
    }
    if (uri.getUserInfo() != null) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' must not carry user info");
    }
    if (allowPrivate) {
      return;
    }
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host.startsWith("[") ? host.substring(1, host.length() - 1) : host);
    } catch (UnknownHostException e) {
      throw A2aException.params("Invalid params: 'pushNotificationConfig.url' host does not resolve: " + host);
    }
    for (InetAddress a : addresses) {
      if (!isPublic(a)) {
        throw A2aException.params("Invalid params: 'pushNotificationConfig.url' must not target a loopback, private or local address ("
            + host + " -> " + a.getHostAddress() + ")");
      }
    }
  }

  static boolean isPublic(InetAddress a) {
    if (a.isLoopbackAddress() || a.isAnyLocalAddress() || a.isLinkLocalAddress() || a.isSiteLocalAddress()
        || a.isMulticastAddress()) {
      return false;
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return false; // fc00::/7 unique local
      }
      boolean v4Mapped = true;
      for (int i = 0; i < 10; i++) {
        v4Mapped &= b[i] == 0;
      }
      if (v4Mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
        try {
          return isPublic(InetAddress.getByAddress(Arrays.copyOfRange(b, 12, 16)));
        } catch (UnknownHostException e) {
          return false;
        }
      }
      return true;
    }
    int first = b[0] & 0xff;
    int second = b[1] & 0xff;
    return !(first == 0 || (first == 100 && second >= 64 && second <= 127) || first >= 240
        || (first == 192 && second == 0 && (b[2] & 0xff) == 0) || (first == 198 && (second == 18 || second == 19)));
  }

  @Override
  public void close() {
    watches.values().forEach(w -> Subscriptions.closeQuietly(w.subscription));
    scheduler.shutdownNow();
  }
}

package io.taskmesh.gateway.a2a.push;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.gateway.a2a.model.A2aState;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.UnaryOperator;

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
 * <p>Targets: see {@link PushTarget}. Configs live in a {@link PushConfigStore} that every replica
 * follows, so each replica knows every config ({@link PushWatches}) and watches the task's updates
 * ({@link TaskWatch}); only the replica that owns the task ({@link DeliveringReplica}) reads the
 * task ({@link NotificationBodies}) and posts ({@link PushDelivery}), so an update is delivered
 * once, not once per replica. That replica removes an ended task's configs later ({@link
 * EndedConfigCleanup}). This class wires those pieces and is the API the A2A methods call.
 */
public final class PushNotifier implements AutoCloseable {
  /** The payload form of configs registered over A2A 0.3: the Task object itself. */
  public static final String FORM_03 = "a2a-0.3";

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

  /**
   * How long the configs of an ended task stay readable (GetTaskPushNotificationConfig after the
   * end) before they are removed.
   */
  static final Duration ENDED_RETENTION = Duration.ofMinutes(10);

  private final boolean allowPrivate;
  private final PushConfigStore store;

  /** Every store read, owner check, POST and timer of the pushes runs here, off the feed thread. */
  private final ScheduledExecutorService deliveryExecutor = Threads.scheduler("a2a-push", 2);

  private final PushWatches watches;
  private final DeliveringReplica replica;
  private final NotificationBodies bodies;
  private final PushDelivery delivery;
  private final EndedConfigCleanup cleanup;

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
    this.allowPrivate = allowPrivate;
    this.store = store;
    this.watches =
        new PushWatches(
            new TaskFollower(queries, feed, deliveryExecutor, deliveryExecutor),
            this::deliver,
            deliveryExecutor);
    this.replica = new DeliveringReplica(queries, deliveryExecutor);
    this.bodies = new NotificationBodies(queries);
    this.delivery = new PushDelivery(retry, allowPrivate, deliveryExecutor);
    this.cleanup = new EndedConfigCleanup(store, watches, endedRetention, deliveryExecutor);
    store.follow(
        new PushConfigStore.Listener() {
          @Override
          public void stored(PushConfigStore.Entry entry) {
            watches.apply(entry);
          }

          @Override
          public void removed(String taskId, String configId) {
            watches.unapply(taskId, configId);
          }
        });
  }

  /**
   * Another binding's payload: {@code form} names it in stored configs, {@code payload} maps the
   * 0.3 Task to it.
   */
  public void addForm(String form, UnaryOperator<JsonNode> payload) {
    bodies.addForm(form, payload);
  }

  /** Stores a config checked by {@link #validate} for every replica; returns it as stored. */
  public ObjectNode set(TaskState task, ObjectNode stored, String form) {
    PushConfigStore.Entry entry =
        new PushConfigStore.Entry(task.id(), stored, form, A2aState.of(task.status()).wire());
    store.put(entry);
    watches.apply(entry); // read-your-writes on this replica; the store's echo is the same entry
    return stored;
  }

  public Optional<ObjectNode> get(String taskId, String configId) {
    return watches.get(taskId, configId);
  }

  public List<ObjectNode> list(String taskId) {
    return watches.list(taskId);
  }

  public boolean delete(String taskId, String configId) {
    if (get(taskId, configId).isEmpty() || configId == null) {
      return false;
    }
    store.remove(taskId, configId);
    watches.unapply(taskId, configId); // the store may have told this replica already
    return true;
  }

  /** A config as the client sent it, checked; {@code id} defaults to a new UUID. */
  public ObjectNode validate(JsonNode config, String taskId) {
    return PushConfigInput.checked(config, allowPrivate);
  }

  /** http(s) only; public addresses only unless allowed. */
  public static void checkTarget(URI uri, boolean allowPrivate) {
    PushTarget.check(uri, allowPrivate);
  }

  /** Delivery executor, one state change at a time per task: owner check, body, POSTs. */
  private CompletableFuture<Void> deliver(TaskWatch.StateChange change) {
    return replica
        .delivers(change.update().id())
        .thenComposeAsync(
            mine -> mine ? postAll(change) : CompletableFuture.completedFuture(null),
            deliveryExecutor);
  }

  private CompletableFuture<Void> postAll(TaskWatch.StateChange change) {
    JsonNode task = bodies.task(change.update());
    CompletableFuture<Void> delivered =
        CompletableFuture.allOf(
            change.targets().stream()
                .map(c -> delivery.post(c.config(), bodies.inForm(c.form(), task)))
                .toArray(CompletableFuture[]::new));
    return change.terminal()
        ? delivered.thenRun(() -> cleanup.forgetLater(change.update().id(), change.targets()))
        : delivered;
  }

  @Override
  public void close() {
    watches.close();
    deliveryExecutor.shutdownNow();
  }
}

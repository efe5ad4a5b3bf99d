package io.taskmesh.gateway.a2a.push;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.topology.TaskQueries;
import io.taskmesh.topology.UpdateFeed;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Retry bounds, ownership and the feed thread's hand-off of {@link PushNotifier} against a receiver
 * on loopback that always answers 500, with in-memory task queries, feed and config store.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PushNotifierTest {
  /** Long enough for an attempt past the bound to have been made, were it scheduled. */
  private static final long QUIET_MS = 600;

  private final List<Map<String, String>> attempts = new CopyOnWriteArrayList<>();
  private final Map<String, Consumer<TaskUpdate>> listeners = new ConcurrentHashMap<>();
  private final UpdateFeed feed =
      (taskId, listener) -> {
        listeners.put(taskId, listener);
        return () -> listeners.remove(taskId);
      };

  /** The task this replica owns; null: every task. */
  private volatile String owned;

  private HttpServer receiver;
  private String url;

  @BeforeEach
  void startReceiver() throws Exception {
    receiver = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    receiver.createContext(
        "/hook",
        ex -> {
          ex.getRequestBody().readAllBytes();
          attempts.add(
              Map.of(
                  "at",
                  Long.toString(System.nanoTime()),
                  "query",
                  String.valueOf(ex.getRequestURI().getQuery()),
                  "token",
                  String.valueOf(ex.getRequestHeaders().getFirst("X-A2A-Notification-Token")),
                  "authorization",
                  String.valueOf(ex.getRequestHeaders().getFirst("Authorization"))));
          ex.sendResponseHeaders(500, -1);
          ex.close();
        });
    receiver.start();
    url = "http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook";
  }

  @AfterEach
  void stopReceiver() {
    receiver.stop(0);
  }

  @Test
  void aFailingTargetGetsOneAttemptPerBackoffStepThenNoMoreWithTheTokenAndAuthenticationEachTime()
      throws Exception {
    try (PushNotifier push =
        notifier(
            new PushNotifier.Retry(
                List.of(Duration.ofMillis(20), Duration.ofMillis(20), Duration.ofMillis(20)),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2)))) {
      register(
          push,
          "{\"url\":\""
              + url
              + "\",\"token\":\"tok\","
              + "\"authentication\":{\"schemes\":[\"Bearer\"],\"credentials\":\"cred\"}}");
      listeners
          .get("t1")
          .accept(TaskUpdate.of("t1", 2, TaskStatus.RUNNING, "working", "2026-01-01T00:00:00Z"));
      Await.until(() -> attempts.size() >= 4, Duration.ofSeconds(10), "four attempts");
      Thread.sleep(QUIET_MS); // a fifth attempt would come 20 ms after the fourth
      assertThat(attempts)
          .hasSize(4)
          .allSatisfy(
              a -> {
                assertThat(a.get("token")).isEqualTo("tok");
                assertThat(a.get("authorization")).isEqualTo("Bearer cred");
              });
    }
  }

  @Test
  void retriesStopWhenTheNextWaitWouldPassTheTimeBound() throws Exception {
    // wide enough that a first POST slowed by a loaded machine still leaves room for a retry
    Duration within = Duration.ofMillis(3000);
    try (PushNotifier push =
        notifier(
            new PushNotifier.Retry(
                Collections.nCopies(10, Duration.ofMillis(600)), within, Duration.ofSeconds(2)))) {
      register(push, "{\"url\":\"" + url + "\"}");
      listeners
          .get("t1")
          .accept(TaskUpdate.of("t1", 2, TaskStatus.RUNNING, "working", "2026-01-01T00:00:00Z"));
      Await.until(() -> attempts.size() >= 2, Duration.ofSeconds(10), "a retry");
      Thread.sleep(
          within.toMillis()
              + 1000); // past the bound and one more wait: any further attempt has come
      // ten waits would allow eleven attempts; the bound allows at most five (0, 0.6, ... 2.4 s)
      assertThat(attempts).hasSizeBetween(2, 5);
      long spanNanos =
          Long.parseLong(attempts.get(attempts.size() - 1).get("at"))
              - Long.parseLong(attempts.get(0).get("at"));
      assertThat(Duration.ofNanos(spanNanos)).isLessThan(within);
    }
  }

  @Test
  void aReplicaThatDoesNotOwnTheTaskDoesNotDeliverButStillKnowsTheConfig() throws Exception {
    owned = "t2";
    try (PushNotifier push =
        notifier(new PushNotifier.Retry(List.of(), Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
      register(push, "t1", "{\"id\":\"c1\",\"url\":\"" + url + "?t1\"}");
      register(push, "t2", "{\"id\":\"c2\",\"url\":\"" + url + "?t2\"}");
      listeners
          .get("t1")
          .accept(TaskUpdate.of("t1", 2, TaskStatus.RUNNING, "working", "2026-01-01T00:00:00Z"));
      listeners
          .get("t2")
          .accept(TaskUpdate.of("t2", 2, TaskStatus.RUNNING, "working", "2026-01-01T00:00:00Z"));
      Await.until(() -> attempts.size() >= 1, Duration.ofSeconds(10), "the owner's attempt");
      Thread.sleep(QUIET_MS); // t1's push, were it sent, went out at the same time as t2's
      assertThat(attempts).extracting(a -> a.get("query")).containsExactly("t2");
      assertThat(push.list("t1")).extracting(c -> c.get("id").asText()).containsExactly("c1");
    }
  }

  @Test
  void theConfigsOfAnEndedTaskAreRemovedAfterTheRetentionByTheReplicaThatDelivers()
      throws Exception {
    List<String> removed = new CopyOnWriteArrayList<>();
    PushConfigStore recording =
        new PushConfigStore() {
          private final PushConfigStore memory = PushConfigStore.inMemory();

          @Override
          public void put(Entry entry) {
            memory.put(entry);
          }

          @Override
          public void remove(String taskId, String configId) {
            removed.add(taskId + "/" + configId);
            memory.remove(taskId, configId);
          }

          @Override
          public void follow(Listener listener) {
            memory.follow(listener);
          }

          @Override
          public void close() {}
        };
    owned = "t1";
    try (PushNotifier push =
        new PushNotifier(
            queries(),
            feed,
            true,
            recording,
            new PushNotifier.Retry(List.of(), Duration.ofSeconds(1), Duration.ofSeconds(2)),
            Duration.ofSeconds(1))) {
      register(push, "t1", "{\"id\":\"c1\",\"url\":\"" + url + "\"}");
      register(push, "t2", "{\"id\":\"c2\",\"url\":\"" + url + "\"}");
      listeners
          .get("t1")
          .accept(TaskUpdate.of("t1", 2, TaskStatus.SUCCEEDED, "done", "2026-01-01T00:00:00Z"));
      listeners
          .get("t2")
          .accept(TaskUpdate.of("t2", 2, TaskStatus.SUCCEEDED, "done", "2026-01-01T00:00:00Z"));
      assertThat(push.list("t1")).as("readable during the retention").hasSize(1);
      Await.until(() -> push.list("t1").isEmpty(), Duration.ofSeconds(10), "t1's config removed");
      Thread.sleep(QUIET_MS); // t2's removal, were it this replica's, has come by now
      assertThat(removed).as("only the delivering replica removes").containsExactly("t1/c1");
      assertThat(push.list("t2")).hasSize(1);
    }
  }

  @Test
  void theFeedHandsOnEachStateChangeWithoutWaitingForTheTaskStore() throws Exception {
    CountDownLatch storeAnswers = new CountDownLatch(1);
    List<String> readers = new CopyOnWriteArrayList<>();
    Function<String, Optional<TaskState>> slowStore =
        taskId -> {
          readers.add(Thread.currentThread().getName());
          try {
            storeAnswers.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return Optional.empty();
        };
    try (PushNotifier push =
        new PushNotifier(
            queries(slowStore),
            feed,
            true,
            PushConfigStore.inMemory(),
            new PushNotifier.Retry(List.of(), Duration.ofSeconds(1), Duration.ofSeconds(2)))) {
      register(push, "{\"url\":\"" + url + "\"}");
      Consumer<TaskUpdate> feedThread = listeners.get("t1");
      // were the store read on the feed thread, this thread would wait here for ever
      feedThread.accept(
          TaskUpdate.of("t1", 2, TaskStatus.RUNNING, "working", "2026-01-01T00:00:00Z"));
      feedThread.accept(
          TaskUpdate.of("t1", 3, TaskStatus.SUCCEEDED, "done", "2026-01-01T00:00:01Z"));
      storeAnswers.countDown();
      Await.until(() -> attempts.size() >= 2, Duration.ofSeconds(10), "both changes pushed");
      assertThat(readers).hasSize(2).doesNotContain(Thread.currentThread().getName());
    }
  }

  private PushNotifier notifier(PushNotifier.Retry retry) {
    return new PushNotifier(queries(), feed, true, PushConfigStore.inMemory(), retry);
  }

  private TaskQueries queries() {
    return queries(taskId -> Optional.empty());
  }

  private TaskQueries queries(Function<String, Optional<TaskState>> store) {
    TaskQueries queries =
        new TaskQueries() {
          @Override
          public Optional<TaskState> get(String taskId) {
            return store.apply(taskId);
          }

          @Override
          public Optional<Boolean> ownsLocally(String taskId) {
            return Optional.of(owned == null || owned.equals(taskId));
          }

          @Override
          public List<TaskState> localTasksOf(String owner) {
            return List.of();
          }

          @Override
          public List<TaskState> tasksOf(String owner) {
            return List.of();
          }
        };
    return queries;
  }

  private static void register(PushNotifier push, String config) throws Exception {
    register(push, "t1", config);
  }

  private static void register(PushNotifier push, String taskId, String config) throws Exception {
    ObjectNode stored = push.validate(Json.MAPPER.readTree(config), taskId);
    push.set(
        TaskState.announced(
            taskId, taskId, null, TaskStatus.PENDING, "created", "2026-01-01T00:00:00Z"),
        stored,
        PushNotifier.FORM_03);
  }
}

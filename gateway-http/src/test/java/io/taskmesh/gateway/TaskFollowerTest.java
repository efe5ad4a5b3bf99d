package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.gateway.follow.OrderedUpdates;
import io.taskmesh.gateway.follow.TaskFollower;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TaskFollowerTest {
  private final InMemoryTaskView view = new InMemoryTaskView();
  private final ExecutorService reads = Executors.newFixedThreadPool(2);
  private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
  private final TaskFollower follower = new TaskFollower(view, view, reads, timers);

  @AfterEach
  void stop() {
    reads.shutdownNow();
    timers.shutdownNow();
  }

  @Test
  void liveUpdatesThatComeBeforeTheHistoryWaitForItAndDuplicatesAreDropped() {
    List<Long> passed = new CopyOnWriteArrayList<>();
    OrderedUpdates ordered = new OrderedUpdates(1, u -> passed.add(u.seq()));
    ordered.live(update(4));
    ordered.live(update(3));
    ordered.replay(List.of(update(1), update(2), update(3)));
    ordered.live(update(4));
    ordered.live(update(5));
    assertThat(passed).containsExactly(2L, 3L, 4L, 5L);
  }

  @Test
  void aReceiverThatTookTheStoredStateWholeGetsOnlyWhatIsNewer() {
    List<Long> passed = new CopyOnWriteArrayList<>();
    OrderedUpdates ordered = new OrderedUpdates(0, u -> passed.add(u.seq()));
    ordered.live(update(2));
    ordered.live(update(4));
    ordered.replay(List.of(), 3);
    assertThat(passed).containsExactly(4L);
  }

  @Test
  void untilCompletesWithTheFirstStateThatSatisfiesIt() throws Exception {
    view.append(TaskEvents.created("t1", "alice"));
    CompletableFuture<Optional<TaskState>> done =
        follower.until("t1", TaskFollower.ownedBy("alice"), TaskState::isFinal, Duration.ZERO);
    assertThat(done).isNotDone();
    view.append(TaskEvent.canceled("t1", "test"));
    assertThat(done.get(5, TimeUnit.SECONDS))
        .get()
        .extracting(TaskState::status)
        .isEqualTo(TaskStatus.CANCELED);
  }

  @Test
  void aFinalStateForAnAnswerIsReadWithoutItsHistoryAndAnUntilStateWithIt() throws Exception {
    view.append(TaskEvents.created("t3", "alice"));
    view.append(TaskEvent.canceled("t3", "test"));

    TaskState answered =
        follower.finalState("t3", TaskFollower.ownedBy("alice")).get(5, TimeUnit.SECONDS).get();
    TaskState whole =
        follower
            .until("t3", TaskFollower.ownedBy("alice"), TaskState::isFinal, Duration.ZERO)
            .get(5, TimeUnit.SECONDS)
            .get();

    assertThat(answered.status()).isEqualTo(TaskStatus.CANCELED);
    assertThat(answered.history()).isEmpty();
    assertThat(whole.history()).hasSize(2);
  }

  @Test
  void untilIsSatisfiedAtOnceByAStateThatAlreadyHoldsIt() throws Exception {
    view.append(TaskEvents.created("t2", null));
    view.append(TaskEvent.canceled("t2", "test"));
    assertThat(
            follower
                .until("t2", TaskFollower.anyOwner(), TaskState::isFinal, Duration.ZERO)
                .get(5, TimeUnit.SECONDS))
        .isPresent();
  }

  @Test
  void anotherOwnersTaskIsNeverHandedOverAndTheTimeLimitAnswersEmpty() throws Exception {
    view.append(TaskEvents.created("t3", "alice"));
    view.append(TaskEvent.canceled("t3", "test"));
    assertThat(
            follower
                .until("t3", TaskFollower.ownedBy("mallory"), s -> true, Duration.ofMillis(50))
                .get(5, TimeUnit.SECONDS))
        .isEmpty();
  }

  @Test
  void updatesReplayTheHistoryThenFollowLiveOnceEach() throws Exception {
    view.append(TaskEvents.created("t4", null));
    List<TaskUpdate> got = new CopyOnWriteArrayList<>();
    CompletableFuture<Optional<TaskState>> stored = new CompletableFuture<>();
    try (AutoCloseable sub =
        follower.updates("t4", 0, TaskFollower.anyOwner(), true, stored::complete, got::add)) {
      assertThat(stored.get(5, TimeUnit.SECONDS)).isPresent();
      view.append(TaskEvents.finished("t4"));
      Await.until(() -> got.size() == 2, Duration.ofSeconds(5), "both updates");
    }
    assertThat(got).extracting(TaskUpdate::seq).containsExactly(1L, 2L);
    assertThat(got.get(1).status()).isEqualTo(TaskStatus.SUCCEEDED);
  }

  private static TaskUpdate update(long seq) {
    return TaskUpdate.of("t", seq, TaskStatus.RUNNING, "step " + seq, "2026-11-27T00:00:00Z");
  }
}

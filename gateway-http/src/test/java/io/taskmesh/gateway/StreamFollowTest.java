package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.follow.NewTaskQueries;
import io.taskmesh.gateway.follow.StreamFollow;
import io.taskmesh.schemas.TaskIds;
import io.taskmesh.schemas.TaskUpdate;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class StreamFollowTest {
  private final InMemoryTaskView view = new InMemoryTaskView();

  @Test
  void anUpdateThatComesBeforeTheStreamStartsIsPassedOnceAfterTheHistory() throws Exception {
    view.append(TaskEvents.created("s1", null));
    List<Long> got = new CopyOnWriteArrayList<>();
    try (StreamFollow follow = StreamFollow.open(view, view, "s1", 0)) {
      assertThat(follow.exists()).isTrue();
      assertThat(follow.state()).isPresent();
      // folded after the store was read: held until the stream starts, and not passed twice
      view.append(TaskEvents.finished("s1"));
      assertThat(got).isEmpty();
      follow.start(u -> got.add(u.seq()));
    }
    assertThat(got).containsExactly(1L, 2L);
  }

  @Test
  void aLastEventIdSkipsWhatTheClientAlreadyHas() throws Exception {
    view.append(TaskEvents.created("s2", null));
    view.append(TaskEvents.finished("s2"));
    List<Long> got = new CopyOnWriteArrayList<>();
    try (StreamFollow follow = StreamFollow.open(view, view, "s2", 1)) {
      follow.start(u -> got.add(u.seq()));
    }
    assertThat(got).containsExactly(2L);
  }

  @Test
  void aTaskCreatedAMomentAgoOpensWhenItsFirstUpdateComes() throws Exception {
    NewTaskQueries queries =
        new NewTaskQueries(view, view, Duration.ofSeconds(30), Clock.systemUTC());
    String id = TaskIds.next();
    CompletableFuture<StreamFollow> opening =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return StreamFollow.open(queries, view, id, 0);
              } catch (InterruptedException e) {
                throw new IllegalStateException(e);
              }
            });
    // the store has nothing yet and the id is young: the open waits
    assertThat(opening).isNotDone();
    view.append(TaskEvents.created(id, null));
    try (StreamFollow follow = opening.get(10, TimeUnit.SECONDS)) {
      assertThat(follow.exists()).isTrue();
      List<TaskUpdate> got = new CopyOnWriteArrayList<>();
      follow.start(got::add);
      assertThat(got).extracting(TaskUpdate::seq).containsExactly(1L);
    }
  }

  @Test
  void anUnknownIdOpensAtOnceAsMissingAndAClosedFollowHearsNothing() throws Exception {
    List<TaskUpdate> got = new CopyOnWriteArrayList<>();
    StreamFollow follow = StreamFollow.open(view, view, "no-such-task", 0);
    assertThat(follow.exists()).isFalse();
    assertThat(follow.state()).isEmpty();
    follow.start(got::add);
    follow.close();
    view.append(TaskEvents.created("no-such-task", null));
    assertThat(got).isEmpty();
  }
}

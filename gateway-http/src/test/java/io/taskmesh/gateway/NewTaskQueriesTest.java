package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.gateway.follow.NewTaskQueries;
import io.taskmesh.schemas.TaskIds;
import io.taskmesh.schemas.TaskState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class NewTaskQueriesTest {
  private final InMemoryTaskView view = new InMemoryTaskView();

  @Test
  void taskIdsAreTimeOrderedUuidsThatTellWhenTheirTaskWasCreated() {
    Instant before = Instant.now().minusMillis(1);
    String id = TaskIds.next();
    assertThat(UUID.fromString(id).version()).isEqualTo(7);
    assertThat(TaskIds.createdAt(id)).hasValueSatisfying(t -> assertThat(t).isAfter(before));
    assertThat(TaskIds.createdAt(UUID.randomUUID().toString())).isEmpty();
    assertThat(TaskIds.createdAt("no-such-task")).isEmpty();
    assertThat(TaskIds.createdAt(null)).isEmpty();
    assertThat(TaskIds.next()).isNotEqualTo(id);
  }

  @Test
  void aReadOfATaskCreatedAMomentAgoWaitsUntilItsCreatedEventIsFolded() throws Exception {
    NewTaskQueries queries = queries(Duration.ofSeconds(30), Clock.systemUTC());
    String id = TaskIds.next();
    CompletableFuture<Optional<TaskState>> read =
        CompletableFuture.supplyAsync(() -> queries.get(id));
    // the read is waiting: nothing is folded yet
    assertThat(read).isNotDone();
    view.append(TaskEvents.created(id, null));
    assertThat(read.get(10, TimeUnit.SECONDS))
        .hasValueSatisfying(s -> assertThat(s.id()).isEqualTo(id));
  }

  @Test
  void anOldARandomOrAForeignIdAnswersNotFoundAtOnce() {
    Clock later = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(5));
    NewTaskQueries queries = queries(Duration.ofSeconds(30), later);
    for (String id : List.of(TaskIds.next(), UUID.randomUUID().toString(), "../../etc/passwd")) {
      assertThat(queries.waitUntil(id)).as("no wait for %s", id).isEmpty();
      assertThat(queries.get(id)).isEmpty();
    }
  }

  @Test
  void aWaitEndsWhereItsBoundAfterCreationEnds() {
    Instant now = Instant.parse("2026-11-27T12:00:00Z");
    NewTaskQueries queries = queries(Duration.ofSeconds(30), Clock.fixed(now, ZoneOffset.UTC));
    String fresh = idCreatedAt(now.minusSeconds(10));
    assertThat(queries.waitUntil(fresh)).contains(now.plusSeconds(20));
    assertThat(queries.waitUntil(idCreatedAt(now.minusSeconds(31)))).isEmpty();
    assertThat(queries.waitUntil(idCreatedAt(now.plusSeconds(60))))
        .as("an id from the future is not one we handed out")
        .isEmpty();
  }

  @Test
  void aFoundTaskAndTheLocalReadsAnswerFromTheViewItself() {
    NewTaskQueries queries = queries(Duration.ofSeconds(30), Clock.systemUTC());
    String id = TaskIds.next();
    view.append(TaskEvents.created(id, null));
    assertThat(queries.get(id)).isPresent();
    assertThat(queries.getLocal(id)).isPresent();
    assertThat(queries.tasksOf(null)).extracting(TaskState::id).contains(id);
  }

  private NewTaskQueries queries(Duration wait, Clock clock) {
    return new NewTaskQueries(view, view, wait, clock);
  }

  /** A version 7 UUID with the given creation time, as TaskIds makes them. */
  private static String idCreatedAt(Instant at) {
    UUID random = UUID.fromString(TaskIds.next());
    long high = (at.toEpochMilli() << 16) | (random.getMostSignificantBits() & 0xFFFFL);
    return new UUID(high, random.getLeastSignificantBits()).toString();
  }
}

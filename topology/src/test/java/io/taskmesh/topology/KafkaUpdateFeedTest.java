package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The feed's own-fold path, without a broker (the fan-out's consumer is created, never started):
 * the topic's copies of the same updates are {@link KafkaUpdateFeedIT}'s.
 */
class KafkaUpdateFeedTest {

  private static TaskUpdate running(String id, long seq) {
    return TaskUpdate.of(id, seq, TaskStatus.RUNNING, null, null);
  }

  @Test
  void anUpdateOfThisReplicasFoldReachesTheTasksSubscribersOnceAndInOrder() throws Exception {
    try (KafkaUpdateFeed feed =
        new KafkaUpdateFeed("127.0.0.1:1", TaskTopics.defaults().updates())) {
      List<Long> got = new CopyOnWriteArrayList<>();
      List<Long> other = new CopyOnWriteArrayList<>();
      try (AutoCloseable sub = feed.subscribe("t1", u -> got.add(u.seq()));
          AutoCloseable sub2 = feed.subscribe("t2", u -> other.add(u.seq()))) {
        feed.folded("t1", running("t1", 1));
        feed.folded("t1", running("t1", 2));
        feed.folded("t1", running("t1", 2)); // the same update again (re-folded after an abort)
        feed.folded("t1", running("t1", 1)); // an older one arriving late
        feed.folded("t1", running("t1", 3));
        feed.folded("t9", running("t9", 1)); // nobody listens
      }
      feed.folded("t1", running("t1", 4)); // unsubscribed
      assertThat(got).containsExactly(1L, 2L, 3L);
      assertThat(other).isEmpty();
    }
  }
}

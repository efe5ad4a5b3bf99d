package io.taskmesh.topology;

import io.taskmesh.servicekit.ops.KafkaMeters;
import java.time.Duration;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;

/** The lifecycle of the fold's Streams client: built, started, awaited, left and closed. */
final class FoldStreams implements AutoCloseable {
  private final KafkaStreams streams;
  private final AutoCloseable meters;

  /**
   * @param folded gets each update the fold makes (the live view's own feed)
   */
  FoldStreams(
      TaskViewConfig config, TaskTopics topics, boolean replay, TaskTopology.FoldedUpdates folded) {
    // a replay never fires a deadline (it would append to the log it reads); the live view fires
    // them on a partition once it has folded that partition's log up to its end
    FoldCaughtUp caughtUp = new FoldCaughtUp(topics.events().name());
    this.streams =
        new KafkaStreams(
            TaskTopology.build(
                    new StreamsBuilder(),
                    topics,
                    TaskTopology.DEFAULT_DEADLINE_SCAN,
                    replay,
                    replay ? TaskTopology.DeadlineGate.NEVER : caughtUp,
                    folded)
                .build(),
            TaskStreamsProps.of(config, replay));
    caughtUp.bind(streams);
    this.meters = TaskViewMetrics.bind(streams);
  }

  /** The client the stores and the key metadata are read from. */
  KafkaStreams streams() {
    return streams;
  }

  KafkaStreams.State state() {
    return streams.state();
  }

  /** Starts the client and waits until it runs. */
  void start(Duration timeout) {
    streams.start();
    awaitRunning(timeout);
  }

  private void awaitRunning(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (streams.state() != KafkaStreams.State.RUNNING) {
      if (streams.state() == KafkaStreams.State.ERROR
          || streams.state() == KafkaStreams.State.NOT_RUNNING
          || System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "task view did not reach RUNNING (state " + streams.state() + ")");
      }
      try {
        Thread.sleep(20); // Streams offers a state listener, but one waiter at start-up is simpler
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the task view", e);
      }
    }
  }

  @Override
  public void close() {
    // leave the group at once so another replica takes the partitions over now, not after the
    // session timeout (Streams does not leave on a plain close)
    streams.close(
        CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(Duration.ofSeconds(20)));
    KafkaMeters.unbind(meters);
  }
}

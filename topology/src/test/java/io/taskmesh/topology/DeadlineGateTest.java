package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Times;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deadline backstop asks its gate before it appends: a fold that has not caught up with the log
 * (or a replay) appends no {@code deadline_expired}, and the due deadline fires once it has.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class DeadlineGateTest {
  private final TaskTopics topics = TaskTopics.defaults();
  @TempDir Path stateDir;

  @Test
  void aDueDeadlineWaitsUntilTheFoldHasCaughtUpThenFiresOnce() {
    AtomicBoolean caughtUp = new AtomicBoolean(false);
    List<Integer> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    TaskTopology.DeadlineGate gate =
        partition -> {
          asked.add(partition);
          return caughtUp.get();
        };
    try (TopologyTestDriver driver = driver(gate)) {
      TestInputTopic<String, TaskEvent> in = input(driver);
      TestOutputTopic<String, TaskEvent> log = log(driver);
      in.pipeInput("d1", createdWithDeadline("d1", Instant.now().plusSeconds(1)));
      driver.advanceWallClockTime(Duration.ofSeconds(5));
      assertThat(asked).as("the backstop asked its gate").isNotEmpty();
      assertThat(log.readValuesToList()).as("nothing appended while behind").isEmpty();
      assertThat(
              driver
                  .<String, io.taskmesh.schemas.TaskState>getKeyValueStore("tasks")
                  .get("d1")
                  .status())
          .isEqualTo(TaskStatus.PENDING);

      caughtUp.set(true);
      driver.advanceWallClockTime(Duration.ofSeconds(1));
      List<TaskEvent> appended = log.readValuesToList();
      assertThat(appended).extracting(TaskEvent::type).containsExactly("deadline_expired");
      assertThat(appended.get(0).taskId()).isEqualTo("d1");

      // once open, the gate is not asked again for this partition's processor
      int asks = asked.size();
      caughtUp.set(false);
      in.pipeInput("d2", createdWithDeadline("d2", Instant.now().plusSeconds(1)));
      driver.advanceWallClockTime(Duration.ofSeconds(5));
      assertThat(asked).hasSize(asks);
      assertThat(log.readValuesToList()).extracting(TaskEvent::taskId).containsExactly("d2");
    }
  }

  /**
   * Each scan makes Streams commit a transaction: a fold without deadlines scans nothing, and one
   * whose last deadline left the index stops scanning after at most one scan.
   */
  @Test
  void aFoldScansOnlyWhileItsIndexHoldsADeadline() {
    List<Integer> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (TopologyTestDriver driver =
        driver(
            partition -> {
              asked.add(partition);
              return false;
            })) {
      for (int i = 0; i < 10; i++) {
        driver.advanceWallClockTime(Duration.ofSeconds(30));
      }
      assertThat(asked).as("no deadline, no scan").isEmpty();

      TestInputTopic<String, TaskEvent> in = input(driver);
      in.pipeInput("f1", createdWithDeadline("f1", Instant.now().plus(Duration.ofHours(1))));
      in.pipeInput(
          "f1", TaskEvent.finished("f1", FinalReport.succeeded("f1", null, "x-sink", null)));
      for (int i = 0; i < 10; i++) {
        driver.advanceWallClockTime(Duration.ofSeconds(30));
      }
      int scans = asked.size();
      assertThat(scans)
          .as("the scan planned for the finished task's deadline")
          .isLessThanOrEqualTo(1);
      for (int i = 0; i < 10; i++) {
        driver.advanceWallClockTime(Duration.ofSeconds(30));
      }
      assertThat(asked).hasSize(scans);
    }
  }

  /** A deadline far ahead fires when it is due, however long the wait between scans. */
  @Test
  void aFarDeadlineFiresWhenDue() {
    try (TopologyTestDriver driver = driver(TaskTopology.DeadlineGate.ALWAYS)) {
      TestOutputTopic<String, TaskEvent> log = log(driver);
      input(driver)
          .pipeInput("l1", createdWithDeadline("l1", Instant.now().plus(Duration.ofMinutes(10))));
      for (int i = 0; i < 9; i++) {
        driver.advanceWallClockTime(Duration.ofMinutes(1));
      }
      assertThat(log.readValuesToList()).as("not due yet").isEmpty();
      driver.advanceWallClockTime(Duration.ofMinutes(2));
      assertThat(log.readValuesToList())
          .extracting(TaskEvent::type)
          .containsExactly("deadline_expired");
    }
  }

  @Test
  void aReplayNeverAppendsADeadline() {
    try (TopologyTestDriver driver = driver(TaskTopology.DeadlineGate.NEVER)) {
      input(driver).pipeInput("r1", createdWithDeadline("r1", Instant.now().minusSeconds(60)));
      driver.advanceWallClockTime(Duration.ofMinutes(5));
      assertThat(log(driver).readValuesToList()).isEmpty();
    }
  }

  private TopologyTestDriver driver(TaskTopology.DeadlineGate gate) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "deadline-gate-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    return new TopologyTestDriver(
        TaskTopology.build(
                new StreamsBuilder(), topics, TaskTopology.DEFAULT_DEADLINE_SCAN, false, gate)
            .build(),
        props);
  }

  private TestInputTopic<String, TaskEvent> input(TopologyTestDriver driver) {
    return driver.createInputTopic(
        topics.events().name(),
        topics.events().keySerde().serializer(),
        topics.events().valueSerde().serializer());
  }

  /** The event log as the fold appends to it (its own topic: the driver does not loop back). */
  private TestOutputTopic<String, TaskEvent> log(TopologyTestDriver driver) {
    return driver.createOutputTopic(
        topics.events().name(),
        topics.events().keySerde().deserializer(),
        topics.events().valueSerde().deserializer());
  }

  private static TaskEvent createdWithDeadline(String id, Instant deadline) {
    return TaskEvent.created(
        id,
        new TaskEvent.Created(
            "flow",
            Route.start("a", List.of()),
            JsonNodeFactory.instance.objectNode(),
            null,
            id,
            Times.iso(deadline),
            null));
  }
}

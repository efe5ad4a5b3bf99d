package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Times;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What makes a replay trustworthy, on a real broker: the event log is created to be kept forever; a
 * replay refuses a log that lost its first events before it touches the view; it appends nothing to
 * the log it reads (no {@code deadline_expired} for tasks whose deadline passed), counts only real
 * events; the live view then fires the deadlines of the tasks still open, once it has caught up,
 * also on a log nobody writes to.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ReplayTrustIT {
  private static final int TASKS = 20;
  @TempDir Path dir;

  private TaskTopics topics(String prefix) {
    return TaskTopics.named(prefix + ".events", prefix + ".updates", "tasks");
  }

  private TaskViewConfig config(String prefix) {
    return new TaskViewConfig(
        LocalKafka.shared().bootstrapServers(),
        prefix + "-app",
        dir.resolve("state"),
        3,
        (short) 1);
  }

  @Test
  void theEventLogIsCreatedToBeKeptForeverUnlessConfiguredOtherwise() throws Exception {
    String forever = "forever-" + UUID.randomUUID().toString().substring(0, 8);
    String week = "week-" + UUID.randomUUID().toString().substring(0, 8);
    try (TaskView a = TaskView.start(config(forever), topics(forever), Duration.ofSeconds(60))) {
      assertThat(topicConfig(forever + ".events", TopicConfig.RETENTION_MS_CONFIG)).isEqualTo("-1");
      // the update feed is only a feed: the cluster's default
      assertThat(topicConfig(forever + ".updates", TopicConfig.RETENTION_MS_CONFIG))
          .isNotEqualTo("-1");
    }
    try (TaskView b =
        TaskView.start(
            config(week).withEventsRetentionMs(604_800_000L),
            topics(week),
            Duration.ofSeconds(60))) {
      assertThat(topicConfig(week + ".events", TopicConfig.RETENTION_MS_CONFIG))
          .isEqualTo("604800000");
    }
  }

  @Test
  void aReplayAppendsNothingAndTheLiveViewFiresTheOpenDeadlinesOnceCaughtUp() throws Exception {
    String prefix = "trust-" + UUID.randomUUID().toString().substring(0, 8);
    TaskTopics topics = topics(prefix);
    TaskViewConfig config = config(prefix);
    // the topics exist as the gateway creates them; then a log written while no view runs: every
    // deadline already passed, half of the tasks succeeded before it
    TaskView.start(config, topics, Duration.ofSeconds(60)).close();
    TaskReplay.reset(config, Duration.ofSeconds(60));
    try (KafkaProducer<String, TaskEvent> producer = producer(topics)) {
      producer.initTransactions();
      for (int i = 0; i < TASKS; i++) {
        String id = "t" + i;
        send(producer, topics, createdWithDeadline(id, Instant.now().minusSeconds(30)));
        if (i % 2 == 0) {
          send(
              producer,
              topics,
              TaskEvent.finished(id, FinalReport.succeeded(id, null, "x-sink", null)));
        }
      }
    }
    long written = TASKS + TASKS / 2;
    assertThat(events(topics)).hasSize((int) written);

    TaskReplay.Result r = TaskReplay.rebuild(config, topics, Duration.ofSeconds(120));
    assertThat(r.events()).as("events counted, markers not").isEqualTo(written);
    assertThat(r.tasks()).isEqualTo(TASKS);
    assertThat(events(topics)).as("the replay appended nothing").hasSize((int) written);

    // the live view restores the replayed state and times out the open tasks, and only those
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      for (int i = 0; i < TASKS; i++) {
        String id = "t" + i;
        TaskStatus expected = i % 2 == 0 ? TaskStatus.SUCCEEDED : TaskStatus.FAILED;
        Await.until(
            () -> view.get(id).map(TaskState::status),
            s -> s.equals(Optional.of(expected)),
            Duration.ofSeconds(60),
            "task " + id + " " + expected);
      }
    }
    List<TaskEvent> log = events(topics);
    assertThat(log.stream().filter(e -> e.type().equals(TaskEvent.DEADLINE_EXPIRED)))
        .extracting(TaskEvent::taskId)
        .containsExactlyInAnyOrderElementsOf(
            java.util.stream.IntStream.range(0, TASKS)
                .filter(i -> i % 2 == 1)
                .mapToObj(i -> "t" + i)
                .toList());

    // a view started on a log nobody writes to still fires a deadline that falls due later
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      view.append(createdWithDeadline("idle", Instant.now().plusSeconds(4)));
      Await.until(
          () -> view.get("idle").map(TaskState::status),
          s -> s.equals(Optional.of(TaskStatus.PENDING)),
          Duration.ofSeconds(30),
          "idle folded");
    }
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      Await.until(
          () -> view.get("idle").map(TaskState::status),
          s -> s.equals(Optional.of(TaskStatus.FAILED)),
          Duration.ofSeconds(60),
          "idle timed out on an idle log");
    }
  }

  @Test
  void aReplayRefusesALogThatLostItsFirstEventsAndKeepsTheViewItHad() throws Exception {
    String prefix = "cut-" + UUID.randomUUID().toString().substring(0, 8);
    TaskTopics topics = topics(prefix);
    TaskViewConfig config = config(prefix);
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      for (int i = 0; i < TASKS; i++) {
        view.append(createdWithDeadline("c" + i, Instant.now().plusSeconds(3600)));
      }
      Await.until(() -> view.localTaskCount() == TASKS, Duration.ofSeconds(60), "folded");
    }
    TaskReplay.checkLogComplete(config, topics); // a whole log passes
    TopicPartition first = new TopicPartition(topics.events().name(), 0);
    try (Admin admin = admin()) {
      long end =
          admin
              .listOffsets(Map.of(first, OffsetSpec.latest()))
              .all()
              .get(30, TimeUnit.SECONDS)
              .get(first)
              .offset();
      assertThat(end).as("partition 0 holds events").isGreaterThan(0);
      // what retention does to old segments
      admin
          .deleteRecords(Map.of(first, RecordsToDelete.beforeOffset(1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    assertThatThrownBy(() -> TaskReplay.checkLogComplete(config, topics))
        .hasMessageContaining("no longer starts at its beginning")
        .hasMessageContaining("partition 0 starts at offset 1")
        .hasMessageContaining("retention.ms=-1");
    assertThatThrownBy(() -> TaskReplay.rebuild(config, topics, Duration.ofSeconds(60)))
        .hasMessageContaining("no longer starts at its beginning");
    try (Admin admin = admin()) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .as("the view's changelogs are still there")
          .contains(config.applicationId() + "-tasks-changelog");
    }
  }

  @Test
  void aReplayBuildsTheNewViewBesideTheOldAndSwapsOnlyOnSuccess() throws Exception {
    String prefix = "swap-" + UUID.randomUUID().toString().substring(0, 8);
    TaskTopics topics = topics(prefix);
    TaskViewConfig config = config(prefix);
    List<TaskState> before;
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      for (int i = 0; i < TASKS; i++) {
        String id = "s" + i;
        view.append(createdWithDeadline(id, Instant.now().plusSeconds(3600)));
        if (i % 3 == 0) {
          view.append(TaskEvent.finished(id, FinalReport.failed(id, "no", "x-sink", null)));
        }
      }
      before =
          Await.until(
              view::localTasks,
              l ->
                  l.size() == TASKS
                      && l.stream().filter(t -> t.status() == TaskStatus.FAILED).count() == 7,
              Duration.ofSeconds(60),
              "folded");
    }
    Map<TopicPartition, ?> offsetsBefore = groupOffsets(config.applicationId());
    assertThat(offsetsBefore).isNotEmpty();

    // a rebuild that cannot finish in time: the view it would replace is untouched
    assertThatThrownBy(() -> ReplaySwap.rebuildBeside(config, topics, Duration.ofMillis(1)))
        .isInstanceOf(IllegalStateException.class);
    assertThat(groupOffsets(config.applicationId())).isEqualTo(offsetsBefore);
    try (Admin admin = admin()) {
      Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      assertThat(names).contains(config.applicationId() + "-tasks-changelog");
      assertThat(names)
          .as("the failed side view is cleaned up")
          .noneMatch(t -> t.startsWith(config.applicationId() + ReplaySwap.SIDE_SUFFIX));
    }

    TaskReplay.Result r = ReplaySwap.rebuildBeside(config, topics, Duration.ofSeconds(120));
    assertThat(r.tasks()).isEqualTo(TASKS);
    try (Admin admin = admin()) {
      assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS))
          .noneMatch(t -> t.startsWith(config.applicationId() + ReplaySwap.SIDE_SUFFIX));
    }
    // the group stands where the replay ended (the log's end, as before), so the next start folds
    // nothing again: the state it shows can only come from the changelogs swapped in
    assertThat(groupOffsets(config.applicationId())).isEqualTo(offsetsBefore);
    try (TaskView view = TaskView.start(config, topics, Duration.ofSeconds(60))) {
      List<TaskState> after =
          Await.until(view::localTasks, l -> l.size() == TASKS, Duration.ofSeconds(60), "restored");
      assertThat(after).isEqualTo(before);
    }
  }

  private static Map<TopicPartition, ?> groupOffsets(String group) throws Exception {
    try (Admin admin = admin()) {
      return admin
          .listConsumerGroupOffsets(group)
          .partitionsToOffsetAndMetadata()
          .get(30, TimeUnit.SECONDS);
    }
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

  private static KafkaProducer<String, TaskEvent> producer(TaskTopics topics) {
    return new KafkaProducer<>(
        Map.of(
            ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
            LocalKafka.shared().bootstrapServers(),
            ProducerConfig.TRANSACTIONAL_ID_CONFIG,
            "replay-trust-" + UUID.randomUUID()),
        topics.events().keySerde().serializer(),
        topics.events().valueSerde().serializer());
  }

  /** One event per transaction, as a sidecar writes them: each leaves a marker in the log. */
  private static void send(
      KafkaProducer<String, TaskEvent> producer, TaskTopics topics, TaskEvent e) {
    producer.beginTransaction();
    producer.send(new ProducerRecord<>(topics.events().name(), e.taskId(), e));
    producer.commitTransaction();
  }

  /** Every committed event of the log, read to its end. */
  private static List<TaskEvent> events(TaskTopics topics) throws Exception {
    List<TaskEvent> out = new ArrayList<>();
    Map<String, Object> props = new HashMap<>();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, LocalKafka.shared().bootstrapServers());
    props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    try (KafkaConsumer<String, TaskEvent> c =
        new KafkaConsumer<>(
            props,
            topics.events().keySerde().deserializer(),
            topics.events().valueSerde().deserializer())) {
      List<TopicPartition> parts =
          c.partitionsFor(topics.events().name()).stream()
              .map(p -> new TopicPartition(p.topic(), p.partition()))
              .toList();
      c.assign(parts);
      c.seekToBeginning(parts);
      Map<TopicPartition, Long> end = c.endOffsets(parts);
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (parts.stream().anyMatch(p -> c.position(p) < end.get(p))) {
        if (System.nanoTime() > until) {
          throw new AssertionError("log not read to its end");
        }
        for (ConsumerRecord<String, TaskEvent> r : c.poll(Duration.ofMillis(200))) {
          out.add(r.value());
        }
      }
    }
    return out;
  }

  private static String topicConfig(String topic, String name) throws Exception {
    try (Admin admin = admin()) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      return admin
          .describeConfigs(List.of(res))
          .all()
          .get(30, TimeUnit.SECONDS)
          .get(res)
          .get(name)
          .value();
    }
  }

  private static Admin admin() {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, LocalKafka.shared().bootstrapServers()));
  }
}

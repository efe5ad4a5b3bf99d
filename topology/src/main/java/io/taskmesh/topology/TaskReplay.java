package io.taskmesh.topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Rebuilds every task view from the event log: {@link #reset} forgets everything derived (the
 * Streams application's committed offsets, its changelog and repartition topics, this machine's
 * local state), {@link #rebuild} runs the fold from the earliest event until it reaches the log end
 * measured at its start. Every gateway replica must be stopped first: a reset refuses to run while
 * the application's consumer group has members.
 */
public final class TaskReplay {
  /**
   * What a rebuild did: events in the log (committed records; transaction markers and aborted
   * records are not events), tasks folded, time.
   */
  public record Result(long events, int tasks, Duration took) {}

  private TaskReplay() {}

  public static void reset(TaskViewConfig config, Duration timeout) {
    String app = config.applicationId();
    try (Admin admin = admin(config)) {
      long deadline = System.nanoTime() + timeout.toNanos();
      requireStopped(admin, app);
      try {
        admin.deleteConsumerGroups(List.of(app)).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof GroupIdNotFoundException)) {
          throw new IllegalStateException(
              "cannot delete the offsets of " + app + ": " + e.getCause(), e);
        }
      }
      Set<String> internal = internalTopics(admin, app);
      if (!internal.isEmpty()) {
        try {
          admin.deleteTopics(internal).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
            throw new IllegalStateException("cannot delete " + internal + ": " + e.getCause(), e);
          }
        }
      }
      while (!internalTopics(admin, app).isEmpty()) { // deletion is asynchronous
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "internal topics of " + app + " still present after " + timeout);
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during reset", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("broker did not answer during reset", e);
    }
    deleteRecursively(config.stateDir().resolve(app));
  }

  /**
   * Refuses (with the reason) when the event log no longer starts at its beginning: a partition
   * whose earliest offset is above 0 has lost events to retention or a deletion, and a view folded
   * from it would miss or misstate tasks. Run before {@link #reset}, so a refused replay leaves the
   * old view as it was.
   *
   * @throws IllegalStateException naming the topic, the partitions and their first offsets
   */
  public static void checkLogComplete(TaskViewConfig config, TaskTopics topics) {
    String topic = topics.events().name();
    try (Admin admin = admin(config)) {
      Map<TopicPartition, Long> earliest = offsets(admin, topic, OffsetSpec.earliest());
      List<String> cut =
          earliest.entrySet().stream()
              .filter(e -> e.getValue() > 0)
              .sorted(Map.Entry.comparingByKey(Comparator.comparingInt(TopicPartition::partition)))
              .map(e -> "partition " + e.getKey().partition() + " starts at offset " + e.getValue())
              .toList();
      if (!cut.isEmpty()) {
        throw new IllegalStateException(
            "the task event log "
                + topic
                + " no longer starts at its beginning ("
                + String.join(", ", cut)
                + "): its first events were deleted (retention.ms or a delete), so a replay would"
                + " lose or misstate tasks; refusing, the current view is left as it is. Keep the"
                + " log forever (retention.ms=-1, the default when the services create it).");
      }
    }
  }

  /**
   * Starts the view on the reset application, waits until it has folded the whole log, stops it.
   * Refuses first when the log does not start at its beginning ({@link #checkLogComplete}).
   */
  public static Result rebuild(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    long start = System.nanoTime();
    checkLogComplete(config, topics);
    Map<TopicPartition, Long> end;
    try (Admin admin = admin(config)) {
      end = offsets(admin, topics.events().name(), OffsetSpec.latest());
    }
    long events = countEvents(config, end);
    try (TaskView view = TaskView.startFoldOnly(config, topics, timeout);
        Admin admin = admin(config)) {
      long deadline = start + timeout.toNanos();
      while (!caughtUp(admin, config.applicationId(), end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "replay did not reach the end of " + topics.events().name() + " in " + timeout);
        }
        TimeUnit.MILLISECONDS.sleep(50);
      }
      int tasks = view.localTaskCount();
      return new Result(events, tasks, Duration.ofNanos(System.nanoTime() - start));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during replay", e);
    }
  }

  /**
   * The committed records below {@code end}: what a read_committed reader gets, so transaction
   * markers (one per partition and transaction of a sidecar or of the fold) and aborted records are
   * not counted as events. One pass over the log, bytes only.
   */
  static long countEvents(TaskViewConfig config, Map<TopicPartition, Long> end) {
    Map<TopicPartition, Long> left = new HashMap<>();
    end.forEach(
        (tp, offset) -> {
          if (offset > 0) {
            left.put(tp, offset);
          }
        });
    long n = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                5000),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.assign(left.keySet());
      consumer.seekToBeginning(left.keySet());
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (!left.isEmpty()) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not count the events of " + left.keySet());
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          Long until = left.get(tp);
          if (until != null && r.offset() < until) {
            n++;
          }
        }
        // the position passes markers too: a partition is done once it reaches its end
        left.keySet().removeIf(tp -> consumer.position(tp) >= left.get(tp));
        consumer.pause(
            end.keySet().stream()
                .filter(tp -> !left.containsKey(tp) && consumer.assignment().contains(tp))
                .toList());
      }
    }
    return n;
  }

  /** Refuses while the application's group has members: a running replica would fold along. */
  static void requireStopped(Admin admin, String app)
      throws InterruptedException, TimeoutException {
    try {
      ConsumerGroupDescription group =
          admin.describeConsumerGroups(List.of(app)).all().get(30, TimeUnit.SECONDS).get(app);
      if (group != null && !group.members().isEmpty()) {
        throw new IllegalStateException(
            "application "
                + app
                + " still has "
                + group.members().size()
                + " running member(s): stop every gateway replica before a replay");
      }
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof GroupIdNotFoundException)) {
        throw new IllegalStateException("cannot describe group " + app + ": " + e.getCause(), e);
      }
    }
  }

  static boolean caughtUp(Admin admin, String app, Map<TopicPartition, Long> end) {
    try {
      Map<TopicPartition, OffsetAndMetadata> committed =
          admin
              .listConsumerGroupOffsets(app)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      return end.entrySet().stream()
          .allMatch(
              e ->
                  e.getValue() == 0
                      || (committed.get(e.getKey()) != null
                          && committed.get(e.getKey()).offset() >= e.getValue()));
    } catch (ExecutionException | TimeoutException e) {
      return false; // the group is still forming
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Map<TopicPartition, Long> offsets(Admin admin, String topic, OffsetSpec spec) {
    try {
      int partitions =
          admin
              .describeTopics(List.of(topic))
              .allTopicNames()
              .get(30, TimeUnit.SECONDS)
              .get(topic)
              .partitions()
              .size();
      Map<TopicPartition, OffsetSpec> request = new HashMap<>();
      for (int p = 0; p < partitions; p++) {
        request.put(new TopicPartition(topic, p), spec);
      }
      return admin.listOffsets(request).all().get(30, TimeUnit.SECONDS).entrySet().stream()
          .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the offsets of " + topic + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  static Set<String> internalTopics(Admin admin, String app)
      throws InterruptedException, TimeoutException {
    try {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
          .filter(
              t ->
                  t.startsWith(app + "-")
                      && (t.endsWith("-changelog") || t.endsWith("-repartition")))
          .collect(Collectors.toSet());
    } catch (ExecutionException e) {
      throw new IllegalStateException("cannot list topics: " + e.getCause(), e);
    }
  }

  static Admin admin(TaskViewConfig config) {
    return Admin.create(
        Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers()));
  }

  private static void deleteRecursively(Path dir) {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete local state " + dir, e);
    }
  }
}

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
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Rebuilds every task view from the event log: {@link #reset} forgets everything derived (the
 * Streams application's committed offsets, its changelog and repartition topics, this machine's
 * local state), {@link #rebuild} runs the fold from the earliest event until it reaches the log end
 * measured at its start. Every gateway replica must be stopped first: a reset refuses to run while
 * the application's consumer group has members.
 */
public final class TaskReplay {
  /**
   * What a rebuild did: events in the log (offsets, incl. transaction markers), tasks folded, time.
   */
  public record Result(long events, int tasks, Duration took) {}

  private TaskReplay() {}

  public static void reset(TaskViewConfig config, Duration timeout) {
    String app = config.applicationId();
    try (Admin admin = admin(config)) {
      long deadline = System.nanoTime() + timeout.toNanos();
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
   * Starts the view on the reset application, waits until it has folded the whole log, stops it.
   */
  public static Result rebuild(TaskViewConfig config, TaskTopics topics, Duration timeout) {
    long start = System.nanoTime();
    Map<TopicPartition, Long> end;
    long events;
    try (Admin admin = admin(config)) {
      end = offsets(admin, topics.events().name(), OffsetSpec.latest());
      Map<TopicPartition, Long> earliest =
          offsets(admin, topics.events().name(), OffsetSpec.earliest());
      events =
          end.entrySet().stream()
              .mapToLong(e -> e.getValue() - earliest.getOrDefault(e.getKey(), 0L))
              .sum();
    }
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

  private static Set<String> internalTopics(Admin admin, String app)
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

  private static Admin admin(TaskViewConfig config) {
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

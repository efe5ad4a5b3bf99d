package io.taskmesh.topology;

import io.taskmesh.servicekit.TopicCreator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.TopicConfig;

/** Creates the task view's own topics (the event log and the update topic) when missing. */
final class TaskTopicSetup {
  private TaskTopicSetup() {}

  static void ensure(TaskViewConfig config, TaskTopics topics) {
    TopicCreator.Spec spec = TopicCreator.Spec.of(config.partitions(), config.replicationFactor());
    try (TopicCreator creator = new TopicCreator(config.bootstrapServers())) {
      // the log is replay's only input: kept for as long as configured (forever by default), not
      // for the cluster's default retention
      creator.ensure(List.of(topics.events().name()), eventLogSpec(config));
      creator.ensure(List.of(topics.updates().name()), spec);
    }
  }

  /** How the event log is created: the task topics' spec with its own {@code retention.ms}. */
  static TopicCreator.Spec eventLogSpec(TaskViewConfig config) {
    TopicCreator.Spec spec = TopicCreator.Spec.of(config.partitions(), config.replicationFactor());
    Map<String, String> configs = new HashMap<>(spec.configs());
    configs.put(TopicConfig.RETENTION_MS_CONFIG, Long.toString(config.eventsRetentionMs()));
    return new TopicCreator.Spec(spec.partitions(), spec.replication(), configs);
  }
}

package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalKafka;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.servicekit.TopicCreator;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The update feed against a real broker: an update of this replica's fold reaches the task's
 * subscriber at once, and its copy read back from the topic is skipped, while an update only the
 * topic has (another replica's fold) still comes through.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KafkaUpdateFeedIT {
  private static final String BOOTSTRAP = LocalKafka.shared().bootstrapServers();

  private static TaskUpdate running(String id, long seq) {
    return TaskUpdate.of(id, seq, TaskStatus.RUNNING, null, null);
  }

  @Test
  void ownUpdatesComeOnceAndTheTopicsOthersStillCome() throws Exception {
    TaskTopics topics =
        TaskTopics.named(
            "feed-events-" + UUID.randomUUID(), "feed-updates-" + UUID.randomUUID(), "feed-store");
    String name = topics.updates().name();
    TopicCreator.ensure(BOOTSTRAP, List.of(name), TopicCreator.Spec.of(3, (short) 1));
    List<Long> got = new CopyOnWriteArrayList<>();
    try (KafkaUpdateFeed feed = new KafkaUpdateFeed(BOOTSTRAP, topics.updates());
        KafkaProducer<String, TaskUpdate> producer =
            new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BOOTSTRAP),
                new StringSerializer(),
                topics.updates().valueSerde().serializer())) {
      feed.start();
      try (AutoCloseable sub = feed.subscribe("t1", u -> got.add(u.seq()))) {
        feed.folded("t1", running("t1", 1));
        feed.folded("t1", running("t1", 2));
        assertThat(got).containsExactly(1L, 2L); // at once, on this thread
        for (long seq = 1; seq <= 3; seq++) { // the fold's copies, then one only the topic has
          producer.send(new ProducerRecord<>(name, "t1", running("t1", seq))).get();
        }
        Await.until(() -> got.size() >= 3, Duration.ofSeconds(60), "the topic's update");
        assertThat(got).containsExactly(1L, 2L, 3L);
      }
    }
  }
}

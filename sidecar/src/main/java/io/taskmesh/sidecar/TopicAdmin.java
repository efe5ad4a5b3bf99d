package io.taskmesh.sidecar;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;

/** Creates topics that are missing (partitions and replication from the config); remembers what exists. */
final class TopicAdmin implements AutoCloseable {
  private final Admin admin;
  private final int partitions;
  private final short replication;
  private final Set<String> known = ConcurrentHashMap.newKeySet();

  TopicAdmin(String bootstrapServers, int partitions, short replication) {
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    this.partitions = partitions;
    this.replication = replication;
  }

  void ensure(Collection<String> topics) {
    ensure(topics, Map.of());
  }

  /** Creates the missing ones with {@code cleanup.policy=compact} (latest value per key kept forever). */
  void ensureCompacted(Collection<String> topics) {
    ensure(topics, Map.of("cleanup.policy", "compact"));
  }

  private void ensure(Collection<String> topics, Map<String, String> configs) {
    List<String> missing = topics.stream().filter(t -> !known.contains(t)).distinct().toList();
    if (missing.isEmpty()) {
      return;
    }
    try {
      Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
      List<NewTopic> create = missing.stream().filter(t -> !existing.contains(t))
          .map(t -> new NewTopic(t, partitions, replication).configs(configs)).toList();
      if (!create.isEmpty()) {
        try {
          admin.createTopics(create).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof TopicExistsException)) {
            throw e;
          }
        }
      }
      known.addAll(missing);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topics " + missing, e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topics " + missing + ": " + e, e);
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}

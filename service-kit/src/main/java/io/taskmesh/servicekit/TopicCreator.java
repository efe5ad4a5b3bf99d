package io.taskmesh.servicekit;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates the topics that are missing and remembers the ones known to exist, so a caller may ask
 * again on every use at no cost. Another process creating the same topic at the same moment is
 * fine: {@link TopicExistsException} counts as success.
 */
public final class TopicCreator implements AutoCloseable {
  private static final long WAIT_SECONDS = 30;

  /** How a missing topic is created. */
  public record Spec(int partitions, short replication, Map<String, String> configs) {
    public Spec {
      configs = Map.copyOf(configs);
    }

    /**
     * With three or more replicas, {@code min.insync.replicas} is {@link #minInsyncReplicas a
     * majority}.
     */
    public static Spec of(int partitions, short replication) {
      return new Spec(partitions, replication, replicationConfigs(replication));
    }

    /** Log compaction: the latest value of each key is kept forever. */
    public Spec compacted() {
      Map<String, String> c = new HashMap<>(configs);
      c.put("cleanup.policy", "compact");
      return new Spec(partitions, replication, c);
    }

    /**
     * A majority of the replicas: with three, an acknowledged write ({@code acks=all}) is on two
     * brokers and writes go on while one broker is down. One or two replicas: one (the broker
     * default), so a topic with two replicas still takes writes with a broker down.
     */
    public static int minInsyncReplicas(int replication) {
      return replication <= 2 ? 1 : replication / 2 + 1;
    }

    private static Map<String, String> replicationConfigs(int replication) {
      return replication <= 2
          ? Map.of()
          : Map.of(
              TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG,
              Integer.toString(minInsyncReplicas(replication)));
    }
  }

  private final Admin admin;
  private final Set<String> known = ConcurrentHashMap.newKeySet();

  public TopicCreator(String bootstrapServers) {
    this.admin =
        Admin.create(
            Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                (int) TimeUnit.SECONDS.toMillis(WAIT_SECONDS)));
  }

  /** One-off: creates the missing ones of {@code topics} and closes the admin client. */
  public static void ensure(String bootstrapServers, Collection<String> topics, Spec spec) {
    try (TopicCreator creator = new TopicCreator(bootstrapServers)) {
      creator.ensure(topics, spec);
    }
  }

  /**
   * Creates the missing ones of {@code topics} with {@code spec}; an existing topic is left as it
   * is.
   *
   * @throws IllegalStateException when the broker refuses or does not answer within 30 s
   */
  public void ensure(Collection<String> topics, Spec spec) {
    List<String> missing = topics.stream().filter(t -> !known.contains(t)).distinct().toList();
    if (missing.isEmpty()) {
      return;
    }
    try {
      Set<String> existing = admin.listTopics().names().get(WAIT_SECONDS, TimeUnit.SECONDS);
      List<NewTopic> create =
          missing.stream()
              .filter(t -> !existing.contains(t))
              .map(
                  t ->
                      new NewTopic(t, spec.partitions(), spec.replication())
                          .configs(spec.configs()))
              .toList();
      if (!create.isEmpty()) {
        try {
          admin.createTopics(create).all().get(WAIT_SECONDS, TimeUnit.SECONDS);
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
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot create topics " + missing + ": " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "Kafka did not answer creating topics " + missing + " within " + WAIT_SECONDS + " s", e);
    }
  }

  @Override
  public void close() {
    admin.close();
  }
}

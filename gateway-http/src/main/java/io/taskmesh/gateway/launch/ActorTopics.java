package io.taskmesh.gateway.launch;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Whether an actor topic can take an envelope. Actor topics belong to the actors' sidecars, which
 * create them; the gateway never does. On a cluster that creates topics on first use ({@code
 * auto.create.topics.enable}) a missing topic is fine; on one that does not, a send to it would
 * wait for the producer's metadata timeout and then fail, so it is refused at once with the reason.
 * Known topics are remembered, so a topic costs one lookup per gateway; a lookup that fails (broker
 * slow or unreachable) decides nothing and leaves the verdict to the send.
 */
final class ActorTopics implements AutoCloseable {
  private static final long WAIT_SECONDS = 5;

  private final Admin admin;
  private final Set<String> known = ConcurrentHashMap.newKeySet();
  private volatile Boolean autoCreate;

  ActorTopics(String bootstrapServers) {
    // each lookup waits WAIT_SECONDS at most (the futures' get), whatever the client's timeouts
    this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
  }

  /**
   * @throws DispatchException when the topic does not exist and the cluster will not create it
   */
  void requireDeliverable(String topic) {
    if (known.contains(topic)) {
      return;
    }
    Boolean exists = exists(topic);
    if (Boolean.TRUE.equals(exists)) {
      known.add(topic);
    } else if (Boolean.FALSE.equals(exists) && Boolean.FALSE.equals(autoCreate())) {
      throw new DispatchException(
          "actor topic "
              + topic
              + " does not exist and the cluster does not create topics on first use"
              + " (auto.create.topics.enable=false): start the actor's sidecar, which creates"
              + " it, or create it",
          null);
    }
  }

  /** True, false, or null when the broker did not say. */
  private Boolean exists(String topic) {
    try {
      Map<String, TopicDescription> d =
          admin
              .describeTopics(java.util.List.of(topic), new DescribeTopicsOptions())
              .allTopicNames()
              .get(WAIT_SECONDS, TimeUnit.SECONDS);
      return d.containsKey(topic);
    } catch (ExecutionException e) {
      return e.getCause() instanceof UnknownTopicOrPartitionException ? false : null;
    } catch (TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The brokers' {@code auto.create.topics.enable}, read once; null while unknown. */
  private Boolean autoCreate() {
    Boolean v = autoCreate;
    if (v != null) {
      return v;
    }
    try {
      Collection<Node> nodes = admin.describeCluster().nodes().get(WAIT_SECONDS, TimeUnit.SECONDS);
      if (nodes.isEmpty()) {
        return null;
      }
      ConfigResource broker =
          new ConfigResource(
              ConfigResource.Type.BROKER, Integer.toString(nodes.iterator().next().id()));
      Config config =
          admin
              .describeConfigs(java.util.List.of(broker))
              .all()
              .get(WAIT_SECONDS, TimeUnit.SECONDS)
              .get(broker);
      ConfigEntry entry = config.get("auto.create.topics.enable");
      v = entry == null || entry.value() == null || Boolean.parseBoolean(entry.value());
      autoCreate = v;
      return v;
    } catch (ExecutionException | TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  @Override
  public void close() {
    admin.close(java.time.Duration.ofSeconds(2));
  }
}

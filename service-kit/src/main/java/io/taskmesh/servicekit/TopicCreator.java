package io.taskmesh.servicekit;

import java.time.Duration;
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
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates the topics that are missing and remembers the ones known to exist, so a caller may ask
 * again on every use at no cost. Another process creating the same topic at the same moment is
 * fine: {@link TopicExistsException} counts as success.
 */
public final class TopicCreator implements AutoCloseable {
  private static final long WAIT_SECONDS = 30;

  /**
   * One start-up attempt's wait: the admin client keeps reconnecting to a broker that is not up yet
   * and only fails at its timeout, so an attempt must be short for the retry to log its line every
   * few seconds rather than once in 30 s.
   */
  private static final long ATTEMPT_SECONDS = 3;

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
   * The start-up retry of a Kafka connection, bounded by {@code limit} ({@code
   * SVC_STARTUP_RETRY_TIMEOUT}): a broker that does not answer yet, or answers with a retriable
   * error (no leader yet, not the controller), is retried; a refused request (authorization, an
   * impossible replication factor) is not.
   */
  public static StartupRetry startupRetry(String bootstrapServers, Duration limit) {
    return new StartupRetry("Kafka at " + bootstrapServers, limit, TopicCreator::worthRetrying);
  }

  static boolean worthRetrying(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof TimeoutException || t instanceof RetriableException) {
        return true;
      }
    }
    return false;
  }

  /** One-off at start-up: {@link #ensure(Collection, Spec, StartupRetry)}, then closes. */
  public static void ensure(
      String bootstrapServers, Collection<String> topics, Spec spec, StartupRetry retry)
      throws InterruptedException {
    try (TopicCreator creator = new TopicCreator(bootstrapServers)) {
      creator.ensure(topics, spec, retry);
    }
  }

  /**
   * At start-up: {@link #ensure(Collection, Spec)}, each attempt waiting a few seconds, retried
   * with backoff while the broker does not answer (it may start after us, or restart).
   *
   * @throws StartupRetry.GaveUp with a one-line message once {@code retry} gives up
   */
  public void ensure(Collection<String> topics, Spec spec, StartupRetry retry)
      throws InterruptedException {
    retry.run(
        () -> {
          ensure(topics, spec, ATTEMPT_SECONDS);
          return null;
        });
  }

  /**
   * At start-up, before anything else uses Kafka: waits until the broker answers (it lists the
   * topics), retried with backoff; for a service whose topics another class creates.
   *
   * @throws StartupRetry.GaveUp with a one-line message once {@code retry} gives up
   */
  public static void awaitBroker(String bootstrapServers, StartupRetry retry)
      throws InterruptedException {
    try (TopicCreator creator = new TopicCreator(bootstrapServers)) {
      creator.awaitBroker(retry);
    }
  }

  /** As {@link #awaitBroker(String, StartupRetry)}, with this creator's admin client. */
  public void awaitBroker(StartupRetry retry) throws InterruptedException {
    retry.run(
        () -> {
          try {
            return admin
                .listTopics(
                    new ListTopicsOptions()
                        .timeoutMs((int) TimeUnit.SECONDS.toMillis(ATTEMPT_SECONDS)))
                .names()
                .get(ATTEMPT_SECONDS, TimeUnit.SECONDS);
          } catch (ExecutionException e) {
            throw new IllegalStateException(problem(e.getCause(), ATTEMPT_SECONDS), e.getCause());
          } catch (TimeoutException e) {
            throw new IllegalStateException("no answer within " + ATTEMPT_SECONDS + " s", e);
          }
        });
  }

  /**
   * Creates the missing ones of {@code topics} with {@code spec}; an existing topic is left as it
   * is.
   *
   * @throws IllegalStateException when the broker refuses or does not answer within 30 s
   */
  public void ensure(Collection<String> topics, Spec spec) {
    ensure(topics, spec, WAIT_SECONDS);
  }

  private void ensure(Collection<String> topics, Spec spec, long waitSeconds) {
    List<String> missing = topics.stream().filter(t -> !known.contains(t)).distinct().toList();
    if (missing.isEmpty()) {
      return;
    }
    try {
      int waitMs = (int) TimeUnit.SECONDS.toMillis(waitSeconds);
      Set<String> existing =
          admin
              .listTopics(new ListTopicsOptions().timeoutMs(waitMs))
              .names()
              .get(waitSeconds, TimeUnit.SECONDS);
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
          admin
              .createTopics(create, new CreateTopicsOptions().timeoutMs(waitMs))
              .all()
              .get(waitSeconds, TimeUnit.SECONDS);
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
          "cannot create topics " + missing + ": " + problem(e.getCause(), waitSeconds),
          e.getCause());
    } catch (TimeoutException e) {
      throw new IllegalStateException(
          "no answer creating topics " + missing + " within " + waitSeconds + " s", e);
    }
  }

  /**
   * The admin client's own words, except for its timeout ("Timed out waiting for a node assignment.
   * Call: listTopics"), which says no more than that the broker did not answer.
   */
  private static String problem(Throwable cause, long waitSeconds) {
    return cause instanceof org.apache.kafka.common.errors.TimeoutException
        ? "no answer within " + waitSeconds + " s"
        : cause.getMessage();
  }

  @Override
  public void close() {
    admin.close();
  }
}

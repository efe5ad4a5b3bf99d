package io.taskmesh.servicekit.ops;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * The readiness check "Kafka reachable": asks the cluster for its brokers within a bounded time.
 * One admin client for the probe's life, created on first use.
 */
public final class KafkaProbe implements Readiness.Check, AutoCloseable {
  private final String bootstrapServers;
  private final Duration timeout;
  private Admin admin;

  public KafkaProbe(String bootstrapServers, Duration timeout) {
    this.bootstrapServers = bootstrapServers;
    this.timeout = timeout;
  }

  @Override
  public synchronized String problem() throws InterruptedException {
    if (admin == null) {
      int ms = (int) timeout.toMillis();
      admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                  AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms,
                  AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms,
                  AdminClientConfig.CLIENT_ID_CONFIG, "readiness-probe"));
    }
    try {
      int brokers =
          admin
              .describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
              .nodes()
              .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
              .size();
      return brokers > 0 ? null : "the cluster answered with no broker";
    } catch (ExecutionException | TimeoutException e) {
      return "Kafka at " + bootstrapServers + " unreachable within " + timeout.toMillis() + " ms";
    }
  }

  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(Duration.ofSeconds(2));
      admin = null;
    }
  }
}

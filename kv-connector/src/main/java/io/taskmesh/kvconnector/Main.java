package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.sql.SQLException;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@code java io.taskmesh.kvconnector.Main}: configuration from the environment. */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    KvConfig config;
    try {
      config = KvConfig.fromEnv(System.getenv());
    } catch (ConfigException e) {
      System.err.println("kv-connector: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    KvStore store = new KvStore(config);
    // Postgres may come up after us: keep trying the schema, then serve
    long backoff = 250;
    while (true) {
      try {
        store.ensureSchema();
        break;
      } catch (SQLException e) {
        LOG.warn("schema not ready ({}); retrying in {} ms", e.getMessage(), backoff);
        Thread.sleep(backoff);
        backoff = Math.min(backoff * 2, 5000);
      }
    }
    KvApp app = new KvApp(config, store).start();
    Readiness readiness =
        new Readiness().add("database", store.readinessProbe(Duration.ofSeconds(2)));
    OpsServer ops = OpsServer.startIfConfigured(System.getenv(), readiness);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  readiness.drain();
                  if (ops != null) {
                    ops.close();
                  }
                  app.close();
                  store.close();
                },
                "kv-connector-stop"));
    System.out.println("kv-connector: ready on " + config.socket());
  }
}

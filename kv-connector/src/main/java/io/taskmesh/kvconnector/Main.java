package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.time.Duration;

/** {@code java io.taskmesh.kvconnector.Main}: configuration from the environment. */
public final class Main {
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
    // Postgres may come up after us, or be restarting: retry the schema, then serve
    try {
      store.ensureSchema(KvStore.startupRetry(config.startupRetryTimeout()));
    } catch (StartupRetry.GaveUp e) {
      System.err.println("kv-connector: cannot start: " + e.getMessage());
      store.close();
      System.exit(1);
      return;
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

package io.taskmesh.connectors;

import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java io.taskmesh.connectors.Main <type>} (or {@code CONNECTOR_TYPE}): serves one mount's
 * connector on {@code CONNECTOR_SOCKET} until SIGTERM. Exit 2 on a bad setting.
 */
public final class Main {
  private static final Logger LOG = LoggerFactory.getLogger(Main.class);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    Map<String, String> env = System.getenv();
    ConnectorServer server;
    StateBackend backend;
    try {
      ConnectorType type =
          ConnectorType.fromSuffix(args.length > 0 ? args[0] : env.get("CONNECTOR_TYPE"));
      ConnectorConfig config = ConnectorConfig.fromEnv(type, env);
      backend = Backends.create(config);
      server = new ConnectorServer(config.socket(), backend);
    } catch (IllegalArgumentException e) { // a ConfigException, or an unknown type
      System.err.println("state connector: " + e.getMessage());
      System.exit(2);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    server.start();
    Readiness readiness = ConnectorOps.readiness(backend);
    OpsServer ops = OpsServer.startIfConfigured(env, readiness);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  readiness.drain();
                  if (ops != null) {
                    ops.close();
                  }
                  server.close();
                  stopped.countDown();
                },
                "connector-shutdown"));
    stopped.await();
    LOG.info("stopped");
  }
}

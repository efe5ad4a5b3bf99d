package io.taskmesh.meshapi;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.StartupRetry;

/** {@code java io.taskmesh.meshapi.Main}: configuration from the environment. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    MeshConfig config;
    try {
      config = MeshConfig.fromEnv(System.getenv());
    } catch (ConfigException e) {
      System.err.println("mesh-api: bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    }
    EventBus bus;
    try {
      bus = new EventBus(config);
    } catch (StartupRetry.GaveUp e) {
      System.err.println("mesh-api: cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    ConnectorClient kv = new ConnectorClient(config.connectorSocket());
    MeshApiApp app = new MeshApiApp(config, kv, bus).start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  app.close();
                  bus.close();
                  try {
                    kv.close();
                  } catch (Exception ignored) {
                    // exiting
                  }
                },
                "mesh-api-stop"));
    System.out.println("mesh-api: http://127.0.0.1:" + app.externalPort());
    System.out.println("mesh-api-internal: http://127.0.0.1:" + app.internalPort());
  }
}

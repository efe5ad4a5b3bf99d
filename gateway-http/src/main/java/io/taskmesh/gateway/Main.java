package io.taskmesh.gateway;

import io.taskmesh.servicekit.StartupRetry;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/** {@code ./taskmesh gateway}: runs the gateway from its environment until SIGTERM. */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    GatewayConfig config;
    try {
      config = GatewayConfig.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("gateway: " + e.getMessage());
      System.exit(2);
      return;
    }
    Gateway gateway;
    try {
      gateway = Gateway.start(config);
    } catch (StartupRetry.GaveUp e) {
      System.err.println("gateway: cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  gateway.close();
                  stopped.countDown();
                },
                "gateway-stop"));
    System.out.println(
        "gateway ("
            + config.mode().name().toLowerCase(Locale.ROOT)
            + "): http://127.0.0.1:"
            + gateway.port());
    stopped.await();
  }
}

package io.taskmesh.sidecar;

import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.ops.OpsServer;
import io.taskmesh.servicekit.ops.Readiness;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

/**
 * {@code java io.taskmesh.sidecar.Main}: runs the actor named by {@code SVC_ACTOR_NAME}: the crew
 * actor {@code x-sink}, {@code x-sump} or {@code x-pause}, otherwise a sidecar for that actor's
 * runtime. Stops cleanly on SIGTERM; exits 1 after a runtime timeout or a fatal Kafka error.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    SidecarConfig config;
    try {
      config = SidecarConfig.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("sidecar: " + e.getMessage());
      System.exit(2);
      return;
    }
    CrewConfig crew;
    try {
      crew = CrewConfig.fromEnv(System.getenv());
    } catch (IllegalArgumentException e) {
      System.err.println("sidecar: " + e.getMessage());
      System.exit(2);
      return;
    }
    GatewayReporter reporter = new GatewayReporter(config.gatewayUrl());
    CountDownLatch stopped = new CountDownLatch(1);
    AutoCloseable actor;
    BooleanSupplier loopRunning = () -> true; // crew actors: their loops stop the process
    // a broker that does not answer yet is retried (SVC_STARTUP_RETRY_TIMEOUT), then one line
    try {
      if (Topics.SINK.equals(config.actorName())) {
        SinkActor sink = new SinkActor(config, crew, reporter, ExitHook.SYSTEM);
        sink.start();
        actor = sink;
      } else if (Topics.SUMP.equals(config.actorName())) {
        SumpActor sump = new SumpActor(config, reporter, ExitHook.SYSTEM);
        sump.start();
        actor = sump;
      } else if (Topics.PAUSE.equals(config.actorName())) {
        PauseActor pause = new PauseActor(config, crew, reporter, ExitHook.SYSTEM);
        pause.start();
        actor = pause;
      } else {
        RuntimeClient runtime = new RuntimeClient(config.socketPath());
        Sidecar sidecar =
            new Sidecar(config, runtime, reporter, ExitHook.SYSTEM, Duration.ofMinutes(10));
        try {
          sidecar.start();
        } catch (
            IllegalStateException notReady) { // the message says which file or socket is missing
          System.err.println("sidecar: " + notReady.getMessage());
          System.exit(1);
          return;
        }
        loopRunning = sidecar::running;
        actor =
            () -> {
              sidecar.close();
              runtime.close();
            };
      }
    } catch (StartupRetry.GaveUp e) {
      System.err.println("sidecar: cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    Readiness readiness = SidecarOps.readiness(config, loopRunning);
    OpsServer ops = OpsServer.startIfConfigured(System.getenv(), readiness);
    System.out.println("sidecar: " + config.actorName() + " ready on " + config.inputTopic());
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  try {
                    readiness.drain(); // not ready from now on; the batch in hand still commits
                    actor.close();
                    reporter.close();
                    SidecarOps.close(ops, readiness);
                  } catch (Exception e) {
                    System.err.println("sidecar: close failed: " + e);
                  }
                  stopped.countDown();
                },
                "sidecar-stop"));
    stopped.await();
  }
}

package io.taskmesh.sidecar;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Stands in for the {@code ./taskmesh dev} JVM in {@link RuntimeEnvironmentIT}: run as a child JVM
 * whose environment holds the secrets, it starts a runtime as dev's {@code DevStack} does (the
 * actor's {@code env} of actors.yaml as the extra variables), prints the runtime's pid and keeps it
 * running until it is stopped.
 */
public final class DevLikeRuntimeLauncher {
  static final String PID_LINE = "runtime-pid ";

  private DevLikeRuntimeLauncher() {}

  public static void main(String[] args) throws InterruptedException {
    RuntimeProcess runtime =
        RuntimeProcess.startReady(
            TestMesh.repoRoot().resolve("runtime"),
            TestMesh.handlersDir(),
            "testhandlers.echo",
            Path.of(args[0]),
            Map.of(RuntimeEnvironmentIT.ACTOR_VARIABLE, RuntimeEnvironmentIT.ACTOR_VALUE),
            Duration.ofSeconds(60));
    Runtime.getRuntime().addShutdownHook(new Thread(runtime::close));
    System.out.println(PID_LINE + runtime.pid());
    System.out.flush();
    new CountDownLatch(1).await(); // lives until the test stops it
  }
}

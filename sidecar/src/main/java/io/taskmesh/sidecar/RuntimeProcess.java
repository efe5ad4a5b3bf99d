package io.taskmesh.sidecar;

import io.taskmesh.servicekit.Env;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Python runtime ({@code python3 -m taskmesh_runtime}) as a child process, for tests and the
 * local launcher. Output goes to {@code runtime.log} in the socket directory. Its environment is
 * built from nothing ({@link ChildEnvironment#forRuntime}): the launcher's never reaches a handler.
 */
public final class RuntimeProcess implements AutoCloseable {
  private final Path socketDir;
  private final String socketName;
  private final Process process;

  private RuntimeProcess(Path socketDir, String socketName, Process process) {
    this.socketDir = socketDir;
    this.socketName = socketName;
    this.process = process;
  }

  /**
   * Starts the runtime and returns at once (use {@link #awaitReady(Duration)} or a {@link
   * RuntimeClient} to wait for it).
   *
   * @param runtimeDir the folder holding the {@code taskmesh_runtime} package ({@code
   *     <repo>/runtime})
   * @param handlerDir the folder of the handler module (put on {@code PYTHONPATH})
   * @param handler {@code module.function} or {@code module.Class.method}
   * @param socketDir where the socket and the ready file go (created when missing)
   * @param extraEnv more variables, e.g. {@code SVC_SOCKET_NAME}, {@code SVC_LOG_LEVEL}
   */
  public static RuntimeProcess start(
      Path runtimeDir,
      Path handlerDir,
      String handler,
      Path socketDir,
      Map<String, String> extraEnv) {
    try {
      Files.createDirectories(socketDir);
      Map<String, String> env = new HashMap<>();
      env.put(
          "PYTHONPATH",
          runtimeDir.toAbsolutePath() + File.pathSeparator + handlerDir.toAbsolutePath());
      env.put("SVC_HANDLER", handler);
      env.put("SVC_SOCKET_DIR", socketDir.toAbsolutePath().toString());
      env.put("PYTHONUNBUFFERED", "1");
      // the runtime stops when this process is gone, also when it is gone before the runtime looks
      env.put("SVC_PARENT_PID", Long.toString(ProcessHandle.current().pid()));
      env.putAll(extraEnv);
      String socketName = Env.of(env).string("SVC_SOCKET_NAME", SidecarConfig.DEFAULT_SOCKET_NAME);
      // a ready file left by a killed runtime would make the sidecar connect too early
      Files.deleteIfExists(socketDir.resolve(RuntimeClient.READY_FILE));
      ProcessBuilder pb =
          new ProcessBuilder(List.of(python(), "-m", "taskmesh_runtime"))
              .redirectErrorStream(true)
              .redirectOutput(
                  ProcessBuilder.Redirect.appendTo(socketDir.resolve("runtime.log").toFile()));
      // from nothing: the launcher's environment holds secrets a handler must not read
      ChildEnvironment.replace(pb, ChildEnvironment.forRuntime(System.getenv(), env));
      return new RuntimeProcess(socketDir, socketName, pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the Python runtime", e);
    }
  }

  /** Starts the runtime and waits until it answers on its socket. */
  public static RuntimeProcess startReady(
      Path runtimeDir,
      Path handlerDir,
      String handler,
      Path socketDir,
      Map<String, String> extraEnv,
      Duration timeout) {
    RuntimeProcess p = start(runtimeDir, handlerDir, handler, socketDir, extraEnv);
    try {
      p.awaitReady(timeout);
      return p;
    } catch (RuntimeException e) {
      p.kill();
      throw e;
    }
  }

  public Path socketDir() {
    return socketDir;
  }

  public Path socketPath() {
    return socketDir.resolve(socketName);
  }

  public Path logFile() {
    return socketDir.resolve("runtime.log");
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Waits for the ready file and a connection; fails early when the process died. */
  public void awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (RuntimeClient client = new RuntimeClient(socketPath())) {
      while (!(Files.exists(socketDir.resolve(RuntimeClient.READY_FILE)) && client.canConnect())) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "runtime exited with " + process.exitValue() + ": " + tail());
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("runtime not ready within " + timeout + ": " + tail());
        }
        Thread.sleep(50);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** SIGKILL: simulates a crash (socket and ready file stay behind). */
  public void kill() {
    process.destroyForcibly();
    waitExit(Duration.ofSeconds(10));
  }

  /** SIGTERM, then SIGKILL after 5 s. */
  @Override
  public void close() {
    process.destroy();
    if (!waitExit(Duration.ofSeconds(5))) {
      kill();
    }
  }

  private boolean waitExit(Duration d) {
    try {
      return process.waitFor(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private String tail() {
    try {
      String log = Files.readString(logFile());
      return log.length() > 2000 ? log.substring(log.length() - 2000) : log;
    } catch (IOException e) {
      return "(no log)";
    }
  }

  private static String python() {
    return Env.of(System.getenv()).string("SVC_PYTHON", "python3");
  }
}

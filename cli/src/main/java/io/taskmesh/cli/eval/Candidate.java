package io.taskmesh.cli.eval;

import io.taskmesh.sidecar.InvokeResult;
import io.taskmesh.sidecar.RuntimeClient;
import io.taskmesh.sidecar.RuntimeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * The candidate handler in a Python runtime of its own, on a scratch socket in a temporary folder:
 * the same runtime and {@code /invoke} protocol the sidecar uses, but nothing around it that could
 * reach the live system. Its environment names no gateway and no Kafka; its state-proxy mounts, if
 * any, are the live actor's on a scratch prefix ({@link CandidateState}), and the answers it gives
 * are only read, never routed. A runtime that dies (a handler calling {@code os._exit}, a crash) is
 * started again for the next envelope; the one in flight is reported as a candidate error.
 */
final class Candidate implements AutoCloseable {
  private static final Duration READY = Duration.ofSeconds(60);
  private static final int MAX_RESTARTS = 20;

  private final Path runtimeDir;
  private final Path handlerDir;
  private final String handler;
  private final Path socketDir;
  private final Map<String, String> env;
  private RuntimeProcess process;
  private RuntimeClient client;
  private int restarts;

  Candidate(
      Path runtimeDir, Path handlerDir, String handler, Path socketDir, Map<String, String> env) {
    this.runtimeDir = runtimeDir;
    this.handlerDir = handlerDir;
    this.handler = handler;
    this.socketDir = socketDir;
    Map<String, String> all = new java.util.HashMap<>(env);
    all.put("SVC_LOG_LEVEL", "WARNING");
    this.env = Map.copyOf(all);
  }

  /** Starts the runtime and waits until it answers. */
  synchronized void start() {
    try {
      process = RuntimeProcess.startReady(runtimeDir, handlerDir, handler, socketDir, env, READY);
    } catch (IllegalStateException e) {
      throw new EvalFailure(
          2, "the candidate handler " + handler + " did not start: " + lastLine(e.getMessage()));
    }
    client = new RuntimeClient(process.socketPath());
  }

  /** One {@code POST /invoke}; never throws. */
  InvokeResult invoke(byte[] body, Duration timeout) {
    RuntimeClient c;
    synchronized (this) {
      c = client;
    }
    InvokeResult r = c.invoke(body, timeout, fly -> {});
    if (r instanceof InvokeResult.Unavailable) {
      restartIfDead();
    }
    return r;
  }

  private synchronized void restartIfDead() {
    if (process.isAlive()) {
      return;
    }
    if (++restarts > MAX_RESTARTS) {
      throw new EvalFailure(
          3, "the candidate runtime died " + MAX_RESTARTS + " times; see " + process.logFile());
    }
    client.close();
    start();
  }

  long pid() {
    return process.pid();
  }

  Path logFile() {
    return process.logFile();
  }

  private static String lastLine(String s) {
    if (s == null) {
      return "(no message)";
    }
    String[] lines = s.strip().split("\n");
    return lines[lines.length - 1].strip();
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
    }
    if (process != null) {
      process.close();
    }
  }

  /** Removes a scratch folder and what is in it. */
  static void deleteTree(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (var files = Files.walk(dir)) {
      files
          .sorted(java.util.Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  // left in the temporary folder
                }
              });
    } catch (IOException e) {
      // left in the temporary folder
    }
  }
}

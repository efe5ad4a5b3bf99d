package io.taskmesh.sidecar;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** {@link Main} in a child JVM (this test classpath), so a test can kill -9 it or watch it exit. */
final class SidecarJvm implements AutoCloseable {
  private final Process process;
  final Path log;

  SidecarJvm(Map<String, String> env, Path log) {
    this.log = log;
    List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        Main.class.getName());
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** SIGKILL: no shutdown hook, no transaction abort, no group leave. */
  void kill9() {
    process.destroyForcibly();
    waitFor(10);
  }

  boolean isAlive() {
    return process.isAlive();
  }

  int exitValue() {
    return process.exitValue();
  }

  String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "";
    }
  }

  private void waitFor(int seconds) {
    try {
      process.waitFor(seconds, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      process.destroy();
      waitFor(15);
      process.destroyForcibly();
    }
  }
}

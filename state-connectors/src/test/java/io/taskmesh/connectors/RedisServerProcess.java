package io.taskmesh.connectors;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * A real Redis for tests, as a child process on a free loopback port (stopped and started again on
 * the same port). The binary is the linux-amd64 {@code redis-server} that the test dependency
 * {@code com.github.codemonstur:embedded-redis} carries, so a fresh machine needs nothing but
 * Maven; {@code TASKMESH_REDIS_SERVER} names another binary (e.g. Debian's {@code
 * /usr/bin/redis-server}).
 */
final class RedisServerProcess implements AutoCloseable {
  private static final String BUNDLED = "/redis-server-6.2.6-v5-linux-amd64";

  private final int port;
  private final Path dir;
  private final Path log;
  private final Path binary;
  private Process process;

  RedisServerProcess() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    dir = Files.createTempDirectory("redis-");
    log = dir.resolve("redis.log");
    String override = System.getenv("TASKMESH_REDIS_SERVER");
    binary = override != null && !override.isBlank() ? Path.of(override) : extractBundled(dir);
  }

  private static Path extractBundled(Path dir) throws IOException {
    try (InputStream in = RedisServerProcess.class.getResourceAsStream(BUNDLED)) {
      if (in == null) {
        throw new IllegalStateException(
            BUNDLED + " is not on the test class path (embedded-redis dependency)");
      }
      Path target = dir.resolve("redis-server");
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
      return target;
    }
  }

  RedisServerProcess start() throws IOException, InterruptedException {
    // no persistence: a restart starts empty, as a lost cache node would
    process =
        new ProcessBuilder(
                binary.toString(),
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!accepting()) {
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("redis-server did not start: " + Files.readString(log));
      }
      Thread.sleep(20);
    }
    return this;
  }

  private boolean accepting() {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  void stop() throws InterruptedException {
    if (process != null) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      process = null;
    }
  }

  URI url() {
    return URI.create("redis://127.0.0.1:" + port);
  }

  @Override
  public void close() throws Exception {
    stop();
    try (var files = Files.walk(dir)) {
      files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
    }
  }
}

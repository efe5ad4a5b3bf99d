package io.taskmesh.cli;

import io.taskmesh.servicekit.Env;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The Redis {@code ./taskmesh dev} starts when a {@code kv-*} state mount names no {@code
 * KVSTORE_URL}: a {@code redis-server} child process on a free loopback port, without persistence
 * (the values are gone when dev stops, as the local S3 server's objects are). The binary is found
 * as the connectors' ITs find theirs: {@code TASKMESH_REDIS_SERVER}, else the one the {@code
 * embedded-redis} artifact carries for this platform, else {@code redis-server} on the {@code
 * PATH}.
 */
final class LocalRedis implements AutoCloseable {
  private final Process process;
  private final int port;

  private LocalRedis(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  static LocalRedis start(Path dir, Duration timeout) {
    return start(LocalPorts.freePort(), dir, timeout);
  }

  /** On this port (a test stops the server and starts it again where the connectors expect it). */
  static LocalRedis start(int port, Path dir, Duration timeout) {
    Path log = dir.resolve("local-redis.log");
    Path binary = binary(dir);
    Process p =
        LocalPorts.start(
            List.of(
                binary.toString(),
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()),
            log,
            port,
            timeout,
            "local Redis: cannot run " + binary,
            "local Redis ("
                + binary
                + ") did not start; set TASKMESH_REDIS_SERVER to a redis-server binary, or"
                + " KVSTORE_URL in the mount's connector.env. Log: "
                + log);
    return new LocalRedis(p, port);
  }

  /** The binary to run; an extracted bundled one is written into {@code dir}. */
  static Path binary(Path dir) {
    Optional<String> override =
        Optional.ofNullable(System.getenv("TASKMESH_REDIS_SERVER")).filter(s -> !s.isBlank());
    if (override.isPresent()) {
      return Path.of(override.get());
    }
    Optional<Path> bundled = bundled(dir);
    if (bundled.isPresent()) {
      return bundled.get();
    }
    String path = Env.of(System.getenv()).string("PATH", "");
    for (String entry : path.split(File.pathSeparator)) {
      Path candidate = Path.of(entry.isEmpty() ? "." : entry, "redis-server");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    throw new IllegalStateException(
        "a kv-* state mount without KVSTORE_URL needs a local Redis, and none was found: no"
            + " TASKMESH_REDIS_SERVER, no bundled binary for "
            + System.getProperty("os.name")
            + "/"
            + System.getProperty("os.arch")
            + ", no redis-server on the PATH. Install Redis or set KVSTORE_URL in the mount's"
            + " connector.env");
  }

  /** embedded-redis's resource name for this platform, when it carries one. */
  private static Optional<String> bundledResource() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    boolean x64 = arch.equals("amd64") || arch.equals("x86_64");
    boolean arm64 = arch.equals("aarch64") || arch.equals("arm64");
    if (os.contains("linux") && x64) {
      return Optional.of("/redis-server-6.2.6-v5-linux-amd64");
    }
    if (os.contains("linux") && arm64) {
      return Optional.of("/redis-server-6.2.7-linux-arm64");
    }
    if (os.contains("mac") && x64) {
      return Optional.of("/redis-server-6.2.6-v5-darwin-amd64");
    }
    if (os.contains("mac") && arm64) {
      return Optional.of("/redis-server-6.2.6-v5-darwin-arm64");
    }
    return Optional.empty();
  }

  private static Optional<Path> bundled(Path dir) {
    Optional<String> resource = bundledResource();
    if (resource.isEmpty()) {
      return Optional.empty();
    }
    try (InputStream in = LocalRedis.class.getResourceAsStream(resource.get())) {
      if (in == null) {
        return Optional.empty();
      }
      Files.createDirectories(dir);
      Path target = dir.resolve("redis-server");
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwx------"));
      return Optional.of(target);
    } catch (IOException e) {
      throw new UncheckedIOException("local Redis: cannot extract " + resource.get(), e);
    }
  }

  int port() {
    return port;
  }

  String url() {
    return "redis://127.0.0.1:" + port;
  }

  @Override
  public void close() {
    LocalPorts.stop(process);
  }
}

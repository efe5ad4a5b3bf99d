package io.taskmesh.cli;

import io.taskmesh.servicekit.Env;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * The S3 server {@code ./taskmesh dev} starts when a state mount names no backend: moto ({@code
 * python3 -m moto.server}) as a child process on a free local port. moto keeps objects in memory
 * (they are gone when dev stops), accepts any credentials and applies {@code If-Match} / {@code
 * If-None-Match} atomically, so the CAS connector behaves as on a real object store.
 */
final class LocalS3 implements AutoCloseable {
  /** moto checks no signature; the SDK still wants some credentials to sign with. */
  static final String ACCESS_KEY = "taskmesh-dev";

  static final String SECRET_KEY = "taskmesh-dev";
  static final String REGION = "us-east-1";

  private final Process process;
  private final String endpoint;

  private LocalS3(Process process, String endpoint) {
    this.process = process;
    this.endpoint = endpoint;
  }

  static LocalS3 start(Path logFile, Duration timeout) {
    return start(LocalPorts.freePort(), logFile, timeout);
  }

  /** On this port (a test stops the server and starts it again where the connectors expect it). */
  static LocalS3 start(int port, Path logFile, Duration timeout) {
    String python = Env.of(System.getenv()).string("SVC_PYTHON", "python3");
    Process p =
        LocalPorts.start(
            List.of(python, "-m", "moto.server", "-H", "127.0.0.1", "-p", Integer.toString(port)),
            logFile,
            port,
            timeout,
            "local S3: cannot run " + python + " -m moto.server",
            "local S3 (moto) did not start; is moto installed in "
                + python
                + "? Or set OBJSTORE_ENDPOINT_URL in the mount's connector.env. Log: "
                + logFile);
    return new LocalS3(p, "http://127.0.0.1:" + port);
  }

  int port() {
    return URI.create(endpoint).getPort();
  }

  String endpoint() {
    return endpoint;
  }

  /** Creates the bucket unless it exists. */
  void ensureBucket(String bucket) {
    try (S3Client s3 = client()) {
      s3.createBucket(b -> b.bucket(bucket));
    } catch (BucketAlreadyOwnedByYouException alreadyThere) {
      // a second mount on the same bucket
    }
  }

  /** An AWS SDK client on this server (the caller closes it). */
  S3Client client() {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
        .build();
  }

  @Override
  public void close() {
    LocalPorts.stop(process);
  }
}

package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The state proxy in the dev stack, all real: tasks go through the gateway and Kafka to a Python
 * runtime whose handler uses plain {@code open()} on mounts, served by connector child JVMs on S3
 * servers (moto); what they wrote is read back with the AWS SDK. The {@code cache} actor runs the
 * bundled example on the local S3 server dev starts itself; the {@code faults} actor's mounts use a
 * server this test owns, so it can stop it and start it again.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StateProxyDevIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String FAULTS_BUCKET = "it-faults";
  private static final int MIB = 1024 * 1024;
  @TempDir static Path data;
  private static LocalS3 ownS3;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws IOException {
    Path root = TestStacks.root();
    ownS3 = LocalS3.start(data.resolve("own-s3.log"), Duration.ofSeconds(60));
    ownS3.ensureBucket(FAULTS_BUCKET);
    Path config = Files.createDirectories(data.resolve("config"));
    Files.writeString(
        config.resolve("flows.yaml"),
        """
        flows:
          - {name: words, entrypoint: cache, timeout: 60, mcp: {inputSchema: {type: object}}}
          - {name: write, entrypoint: write, timeout: 120, mcp: {inputSchema: {type: object}}}
          - {name: note, entrypoint: note, timeout: 60, mcp: {inputSchema: {type: object}}}
        """);
    String faultMounts =
        """
            stateProxy:
              - name: big
                mount: {path: /state/big}
                writeMode: passthrough
                connector:
                  type: objstore-passthrough
                  env: {STATE_BUCKET: %1$s, STATE_PREFIX: "%%1$s/", OBJSTORE_ENDPOINT_URL: "%2$s",
                        AWS_ACCESS_KEY_ID: %3$s, AWS_SECRET_ACCESS_KEY: %4$s}
              - name: whole
                mount: {path: /state/whole}
                writeMode: buffered
                connector:
                  type: objstore-buffered-lww
                  env: {STATE_BUCKET: %1$s, STATE_PREFIX: "%%1$s/", OBJSTORE_ENDPOINT_URL: "%2$s",
                        AWS_ACCESS_KEY_ID: %3$s, AWS_SECRET_ACCESS_KEY: %4$s}
        """
            .formatted(FAULTS_BUCKET, ownS3.endpoint(), LocalS3.ACCESS_KEY, LocalS3.SECRET_KEY);
    Files.writeString(
        config.resolve("actors.yaml"),
        """
        actors:
          cache:
            handler: cache.word_counts
            dir: %s
            stateProxy:
              - name: cache
                mount: {path: /state/cache}
                connector:
                  image: example.org/svc-state-proxy-objstore-buffered-cas:1.0
                  env:
                    - {name: STATE_BUCKET, value: it-cache}
          write:
            handler: state_it.write
            dir: %s
        %s
          note:
            handler: state_it.note
            dir: %s
        %s
        """
            .formatted(
                root.resolve("runtime/examples"),
                handlers(root),
                faultMounts.formatted("write"),
                handlers(root),
                faultMounts.formatted("note")));
    stack = TestStacks.onSharedBroker(config, data, "sp");
    base = stack.gatewayUrl();
  }

  private static Path handlers(Path root) {
    return root.resolve("cli/src/test/resources/state-proxy-it");
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
    if (ownS3 != null) {
      ownS3.close();
    }
  }

  @Test
  void theCacheExampleKeepsResultsAndHitsInTheLocalS3ServerDevStarted() throws Exception {
    String text = "state proxy state of the art " + UUID.randomUUID();
    for (int call = 1; call <= 3; call++) {
      JsonNode task = runTask("words", Map.of("text", text));
      assertThat(task.get("status").asText()).as(task.toString()).isEqualTo("succeeded");
      assertThat(task.at("/result/hits").asInt()).isEqualTo(call);
      assertThat(task.at("/result/cached").asBoolean()).isEqualTo(call > 1);
      assertThat(task.at("/result/top_words/state").asInt()).isEqualTo(2);
    }
    String key =
        HexFormat.of()
            .formatHex(
                MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    assertThat(stack.stateProxy().localS3Endpoint()).isPresent();
    try (S3Client s3 = localS3Client(stack.stateProxy().localS3Endpoint().orElseThrow())) {
      assertThat(s3.getObjectAsBytes(b -> b.bucket("it-cache").key("hits/" + key)).asUtf8String())
          .isEqualTo("3");
      JsonNode result =
          Json.MAPPER.readTree(
              s3.getObjectAsBytes(b -> b.bucket("it-cache").key("results/" + key + ".json"))
                  .asByteArray());
      assertThat(result.get("state").asInt()).isEqualTo(2);
      assertThat(result.get("proxy").asInt()).isEqualTo(1);
    }
  }

  /**
   * A connector killed (SIGKILL) while a 64 MiB write streams through it leaves the object as it
   * was: the handler's write fails, the bucket still holds the old bytes, and once the connector is
   * back the next write lands whole.
   */
  @ParameterizedTest(name = "mount {0}")
  @ValueSource(strings = {"big", "whole"})
  void aConnectorKilledMidWriteLeavesTheOldValueNeverATornOne(String mount) throws Exception {
    String key = "torn-" + mount;
    String objectKey = "write/" + key;
    JsonNode first =
        runTask("write", Map.of("mount", "/state/" + mount, "key", key, "fill", "a", "mib", 8));
    assertThat(first.get("status").asText()).as(first.toString()).isEqualTo("succeeded");
    assertFilledWith(objectKey, 8 * MIB, 'a');

    ConnectorProcess connector = stack.stateProxy().connector("write", mount);
    long pid = connector.pid();
    long readBefore = bytesRead(pid);
    String id =
        startTask("write", Map.of("mount", "/state/" + mount, "key", key, "fill", "b", "mib", 64));
    // kill it once a quarter of the new object went through it: mid-write, whatever the timing
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (bytesRead(pid) - readBefore < 16L * MIB) {
      assertThat(System.nanoTime())
          .as("the connector never read 16 MiB of the write")
          .isLessThan(deadline);
      Thread.sleep(2); // the only signal of progress is the child's I/O counter
    }
    ProcessHandle.of(pid).orElseThrow().destroyForcibly();

    JsonNode killed = awaitTerminal(id);
    assertThat(killed.get("status").asText()).as(killed.toString()).isEqualTo("failed");
    assertFilledWith(objectKey, 8 * MIB, 'a');

    assertThat(connector.awaitAccepting(Duration.ofSeconds(60))).isTrue();
    assertThat(connector.pid()).isNotEqualTo(pid);
    assertThat(connector.restarts()).isEqualTo(1);
    JsonNode after =
        runTask("write", Map.of("mount", "/state/" + mount, "key", key, "fill", "c", "mib", 8));
    assertThat(after.get("status").asText()).as(after.toString()).isEqualTo("succeeded");
    assertFilledWith(objectKey, 8 * MIB, 'c');
  }

  @Test
  void theBackendDownFailsTheTaskWithConnectionErrorAndTheNextTaskSucceedsOnceItIsBack()
      throws Exception {
    JsonNode before = runTask("note", Map.of("mount", "/state/whole", "key", "n", "text", "first"));
    assertThat(before.get("status").asText()).as(before.toString()).isEqualTo("succeeded");
    int calls = before.at("/result/calls").asInt();

    int port = ownS3.port();
    ownS3.close();
    try {
      JsonNode down = runTask("note", Map.of("mount", "/state/whole", "key", "n", "text", "lost"));
      assertThat(down.get("status").asText()).as(down.toString()).isEqualTo("failed");
      assertThat(down.get("error").asText()).startsWith("ConnectionError");
    } finally {
      ownS3 = LocalS3.start(port, data.resolve("own-s3.log"), Duration.ofSeconds(60));
      ownS3.ensureBucket(
          FAULTS_BUCKET); // moto keeps everything in memory: the restarted one is empty
    }

    JsonNode back = runTask("note", Map.of("mount", "/state/whole", "key", "n", "text", "second"));
    assertThat(back.get("status").asText()).as(back.toString()).isEqualTo("succeeded");
    assertThat(back.at("/result/text").asText()).isEqualTo("second");
    // the same runtime process served all three calls: it was not restarted to recover
    assertThat(back.at("/result/calls").asInt()).isEqualTo(calls + 2);
    assertThat(new String(ownObjectBytes("note/n"), StandardCharsets.UTF_8)).isEqualTo("second");
    assertThat(stack.stateProxy().connector("note", "whole").restarts()).isZero();
  }

  /** Total bytes the process has read from files and sockets ({@code rchar} of /proc/{pid}/io). */
  private static long bytesRead(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "io"))) {
      if (line.startsWith("rchar:")) {
        return Long.parseLong(line.substring(6).trim());
      }
    }
    throw new IllegalStateException("no rchar in /proc/" + pid + "/io");
  }

  /**
   * The object is exactly {@code size} bytes of {@code fill}: one write whole, nothing of another.
   */
  private static void assertFilledWith(String key, int size, char fill) {
    byte[] object = ownObjectBytes(key);
    assertThat(object.length).as("size of %s", key).isEqualTo(size);
    int other = 0;
    while (other < object.length && object[other] == fill) {
      other++;
    }
    assertThat(other).as("first byte of %s that is not '%s'", key, fill).isEqualTo(size);
  }

  private static byte[] ownObjectBytes(String key) {
    try (S3Client s3 = ownS3.client()) {
      ResponseBytes<GetObjectResponse> bytes =
          s3.getObjectAsBytes(b -> b.bucket(FAULTS_BUCKET).key(key));
      return bytes.asByteArray();
    }
  }

  private static JsonNode runTask(String tool, Map<String, Object> args) throws Exception {
    return awaitTerminal(startTask(tool, args));
  }

  private static String startTask(String tool, Map<String, Object> args) throws Exception {
    String body = Json.MAPPER.writeValueAsString(Map.of("name", tool, "arguments", args));
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  /** Follows the task's stream to its end, then answers the stored task. */
  private static JsonNode awaitTerminal(String id) throws Exception {
    try (SseReader sse = SseReader.open(base + "/stream/" + id, null)) {
      sse.readUntilClosed(Duration.ofSeconds(150));
    }
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tasks/" + id)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return Json.MAPPER.readTree(r.body());
  }

  /** An SDK client on dev's local S3 server, with the credentials dev gives its connectors. */
  private static S3Client localS3Client(String endpoint) {
    return S3Client.builder()
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .credentialsProvider(
            StaticCredentialsProvider.create(
                AwsBasicCredentials.create(LocalS3.ACCESS_KEY, LocalS3.SECRET_KEY)))
        .build();
  }
}

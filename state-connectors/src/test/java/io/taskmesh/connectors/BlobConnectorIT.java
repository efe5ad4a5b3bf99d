package io.taskmesh.connectors;

import static io.taskmesh.connectors.Connectors.JSON;
import static io.taskmesh.connectors.Connectors.attr;
import static io.taskmesh.connectors.Connectors.putExclusive;
import static io.taskmesh.connectors.Connectors.putMeta;
import static io.taskmesh.connectors.Connectors.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.LocalGcsServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The blob connector types against the GCS JSON API test server (no GCS emulator installs here;
 * {@link LocalGcsServerTest} checks that server against the official client first), over a real
 * Unix socket, with a service-account key made up for the test to sign URLs.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BlobConnectorIT {
  private static final String BUCKET = "blob-it";
  private static LocalGcsServer gcs;
  private static Path keyDir;
  private static Path keyFile;
  private Connectors connectors;

  @BeforeAll
  static void startBackend() throws Exception {
    gcs = new LocalGcsServer();
    gcs.createBucket(BUCKET);
    TestServiceAccount account = new TestServiceAccount();
    gcs.trustSigner(account.publicKey());
    keyDir = Files.createTempDirectory("gsa-");
    keyFile = account.writeKeyFile(keyDir);
  }

  @AfterAll
  static void stopBackend() throws Exception {
    gcs.close();
    Files.deleteIfExists(keyFile);
    Files.deleteIfExists(keyDir);
  }

  @BeforeEach
  void open() throws Exception {
    connectors = new Connectors();
  }

  @AfterEach
  void closeConnectors() throws Exception {
    connectors.close();
    List<String> unhandled = List.copyOf(gcs.unhandled());
    gcs.unhandled().clear();
    assertThat(unhandled)
        .as("every call the connector made is one the test server implements")
        .isEmpty();
  }

  private UnixClient connector(ConnectorType type, String prefix, URI endpoint) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("STATE_BUCKET", BUCKET);
    env.put("STATE_PREFIX", prefix);
    env.put("STORAGE_EMULATOR_HOST", endpoint.toString());
    env.put("CLOUD_PROJECT", "local-project");
    env.put("GOOGLE_APPLICATION_CREDENTIALS", keyFile.toString());
    env.put("STATE_PRESIGN_TTL", "120");
    return connectors.start(type, env);
  }

  private UnixClient connector(ConnectorType type, String prefix) throws Exception {
    return connector(type, prefix, gcs.endpoint());
  }

  private static String rawRead(String name) {
    LocalGcsServer.Stored s = gcs.object(BUCKET, name);
    return s == null ? null : new String(s.data(), StandardCharsets.UTF_8);
  }

  private static void otherWriter(String name, String value) {
    gcs.put(BUCKET, name, value.getBytes(StandardCharsets.UTF_8));
  }

  @ParameterizedTest
  @EnumSource(
      value = ConnectorType.class,
      names = {"BLOB_BUFFERED_LWW", "BLOB_BUFFERED_CAS"})
  void writeReadStatListDelete(ConnectorType type) throws Exception {
    String prefix = unique("basic");
    UnixClient c = connector(type, prefix);
    assertThat(c.get("/healthz").getContentAsString()).contains("\"ready\"");
    assertThat(c.put("/keys/dir/a.txt", "hello").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/dir/sub/b.txt", "bb").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/top%20name.txt", "t").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/empty", "").getStatus()).isEqualTo(204);
    assertThat(rawRead(prefix + "dir/a.txt")).as("stored under STATE_PREFIX").isEqualTo("hello");
    assertThat(rawRead(prefix + "top name.txt")).isEqualTo("t");

    ContentResponse read = c.get("/keys/dir/a.txt");
    assertThat(read.getStatus()).isEqualTo(200);
    assertThat(read.getContentAsString()).isEqualTo("hello");
    assertThat(c.get("/keys/empty").getContent()).isEmpty();
    ContentResponse file = c.head("/keys/dir/a.txt");
    assertThat(file.getHeaders().get("Content-Length")).isEqualTo("5");
    assertThat(file.getHeaders().get("X-Is-File")).isEqualTo("true");
    assertThat(c.head("/keys/dir").getHeaders().get("X-Is-File")).isEqualTo("false");
    assertThat(c.head("/keys/nothing").getStatus()).isEqualTo(404);
    assertThat(c.get("/keys/nothing").getStatus()).isEqualTo(404);

    JsonNode list = JSON.readTree(c.get("/keys/?prefix=dir/&delimiter=/").getContent());
    assertThat(list.get("keys")).extracting(JsonNode::asText).containsExactly("dir/a.txt");
    assertThat(list.get("prefixes")).extracting(JsonNode::asText).containsExactly("dir/sub/");
    JsonNode root = JSON.readTree(c.get("/keys?prefix=&delimiter=/").getContent());
    assertThat(root.get("keys"))
        .extracting(JsonNode::asText)
        .containsExactly("empty", "top name.txt");
    assertThat(root.get("prefixes")).extracting(JsonNode::asText).containsExactly("dir/");

    assertThat(c.delete("/keys/dir/a.txt").getStatus()).isEqualTo(204);
    assertThat(c.delete("/keys/dir/a.txt").getStatus()).isEqualTo(404);
    assertThat(c.get("/keys/dir/a.txt").getStatus()).isEqualTo(404);
  }

  @ParameterizedTest
  @EnumSource(
      value = ConnectorType.class,
      names = {"BLOB_BUFFERED_LWW", "BLOB_BUFFERED_CAS"})
  void exclusiveCreateConflicts(ConnectorType type) throws Exception {
    UnixClient c = connector(type, unique("x"));
    assertThat(putExclusive(c, "/keys/once", "first").getStatus()).isEqualTo(204);
    assertThat(putExclusive(c, "/keys/once", "second").getStatus())
        .as("ifGenerationMatch=0 -> 412 -> 409")
        .isEqualTo(409);
    assertThat(c.get("/keys/once").getContentAsString()).isEqualTo("first");
  }

  @Test
  void casWriteFailsWhenTheGenerationChangedSinceRead() throws Exception {
    String prefix = unique("cas");
    UnixClient c = connector(ConnectorType.BLOB_BUFFERED_CAS, prefix);
    assertThat(c.put("/keys/k", "1").getStatus()).as("never read: unconditional").isEqualTo(204);
    otherWriter(prefix + "k", "other writer");
    assertThat(c.put("/keys/k", "2").getStatus())
        .as("its own last write is the base, and it changed")
        .isEqualTo(409);
    assertThat(c.get("/keys/k").getContentAsString()).isEqualTo("other writer");
    assertThat(c.put("/keys/k", "3").getStatus()).as("read again: write succeeds").isEqualTo(204);
    assertThat(rawRead(prefix + "k")).isEqualTo("3");
    assertThat(putMeta(c, "k", "content_type", "{\"value\":\"text/plain\"}").getStatus())
        .isEqualTo(204);
    assertThat(c.put("/keys/k", "4").getStatus())
        .as("a metadata patch keeps the generation")
        .isEqualTo(204);
    otherWriter(prefix + "unread", "x");
    assertThat(c.put("/keys/unread", "mine").getStatus()).isEqualTo(204);

    assertThat(c.get("/keys/fresh").getStatus()).isEqualTo(404);
    otherWriter(prefix + "fresh", "created meanwhile");
    assertThat(c.put("/keys/fresh", "mine").getStatus())
        .as("read as absent: create only")
        .isEqualTo(409);
    c.get("/keys/fresh");
    gcs.remove(BUCKET, prefix + "fresh");
    assertThat(c.put("/keys/fresh", "mine").getStatus()).as("deleted since read").isEqualTo(409);
    assertThat(gcs.requests())
        .anyMatch(r -> r.contains("ifGenerationMatch=0"))
        .anyMatch(r -> r.matches(".*ifGenerationMatch=[1-9].*"));
  }

  @Test
  void lastWriteWinsIgnoresOtherWriters() throws Exception {
    String prefix = unique("lww");
    UnixClient c = connector(ConnectorType.BLOB_BUFFERED_LWW, prefix);
    assertThat(c.put("/keys/k", "1").getStatus()).isEqualTo(204);
    c.get("/keys/k");
    otherWriter(prefix + "k", "other");
    assertThat(c.put("/keys/k", "2").getStatus()).isEqualTo(204);
    assertThat(rawRead(prefix + "k")).isEqualTo("2");
  }

  @Test
  void twoConcurrentCasIncrementersEndWithTheAcknowledgedCount() throws Exception {
    String prefix = unique("count");
    List<UnixClient> clients =
        List.of(
            connector(ConnectorType.BLOB_BUFFERED_CAS, prefix),
            connector(ConnectorType.BLOB_BUFFERED_CAS, prefix));
    assertThat(clients.get(0).put("/keys/counter", "0").getStatus()).isEqualTo(204);
    Connectors.Increments result = Connectors.incrementConcurrently(clients, "/keys/counter", 40);
    assertThat(Integer.parseInt(rawRead(prefix + "counter"))).isEqualTo(result.acknowledged());
    assertThat(result.acknowledged() + result.conflicts()).isEqualTo(80);
    assertThat(result.acknowledged()).isPositive();
  }

  @Test
  void extendedAttributes() throws Exception {
    String prefix = unique("meta");
    UnixClient c = connector(ConnectorType.BLOB_BUFFERED_LWW, prefix);
    c.put("/keys/m.txt", "meta body");
    assertThat(JSON.readTree(c.get("/meta/m.txt").getContent()))
        .extracting(JsonNode::asText)
        .containsExactlyInAnyOrder(
            "url", "signed_url", "generation", "content_type", "metageneration");
    assertThat(attr(c, "m.txt", "generation"))
        .isEqualTo(String.valueOf(gcs.object(BUCKET, prefix + "m.txt").generation()));
    assertThat(attr(c, "m.txt", "url"))
        .isEqualTo(gcs.endpoint() + "/" + BUCKET + "/" + prefix + "m.txt");
    assertThat(attr(c, "m.txt", "metageneration")).isEqualTo("1");
    assertThat(attr(c, "m.txt", "content_type")).isEqualTo("application/octet-stream");

    String signed = attr(c, "m.txt", "signed_url");
    assertThat(signed)
        .contains("X-Goog-Expires=120")
        .contains("X-Goog-Algorithm=GOOG4-RSA-SHA256")
        .contains(TestServiceAccount.EMAIL.replace("@", "%40"));
    HttpResponse<String> viaUrl =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(signed)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(viaUrl.statusCode())
        .as("the signature verifies with the key's public half")
        .isEqualTo(200);
    assertThat(viaUrl.body()).isEqualTo("meta body");

    assertThat(putMeta(c, "m.txt", "content_type", "{\"value\":\"text/plain\"}").getStatus())
        .isEqualTo(204);
    assertThat(attr(c, "m.txt", "content_type")).isEqualTo("text/plain");
    assertThat(attr(c, "m.txt", "metageneration")).isEqualTo("2");
    assertThat(c.get("/keys/m.txt").getContentAsString()).as("content kept").isEqualTo("meta body");
    assertThat(c.get("/keys/m.txt").getHeaders().get("Content-Type")).startsWith("text/plain");

    assertThat(putMeta(c, "m.txt", "generation", "{\"value\":\"1\"}").getStatus()).isEqualTo(403);
    assertThat(c.get("/meta/m.txt?attr=etag").getStatus()).as("an objstore name").isEqualTo(400);
    assertThat(c.get("/meta/m.txt?attr=ttl").getStatus()).as("a kv name").isEqualTo(400);
    assertThat(c.get("/meta/absent?attr=generation").getStatus()).isEqualTo(404);
    assertThat(putMeta(c, "absent", "content_type", "{\"value\":\"a/b\"}").getStatus())
        .isEqualTo(404);
  }

  @Test
  void backendDownAnswers503AndRecoversWithoutRestart() throws Exception {
    LocalGcsServer own = new LocalGcsServer();
    int port = own.endpoint().getPort();
    own.createBucket(BUCKET);
    UnixClient c = connector(ConnectorType.BLOB_BUFFERED_CAS, "down/", own.endpoint());
    assertThat(c.put("/keys/k", "before").getStatus()).isEqualTo(204);
    own.close();
    assertThat(c.get("/keys/k").getStatus()).isEqualTo(503);
    assertThat(c.put("/keys/k", "during").getStatus()).isEqualTo(503);
    assertThat(c.head("/keys/k").getStatus()).isEqualTo(503);
    try (LocalGcsServer again =
        new LocalGcsServer(port)) { // keeps nothing: the bucket is made again
      again.createBucket(BUCKET);
      assertThat(c.get("/keys/k").getStatus()).isEqualTo(404);
      assertThat(c.put("/keys/k", "after").getStatus()).isEqualTo(204);
      assertThat(c.get("/keys/k").getContentAsString()).isEqualTo("after");
    }
  }
}

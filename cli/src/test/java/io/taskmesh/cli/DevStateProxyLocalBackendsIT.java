package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.storage.BlobId;
import com.google.cloud.storage.Storage;
import com.google.cloud.storage.StorageOptions;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Mounts in dev that name no backend get a local one (and {@code state/local-backends.json} names
 * it while dev runs): a {@code kv-buffered-cas} mount without {@code KVSTORE_URL} a local
 * redis-server, a {@code blob-buffered-cas} mount without {@code STORAGE_EMULATOR_HOST} the
 * in-memory JSON API blob store. The connector is a real child JVM; a write through its socket is
 * read back from the backend with that backend's own client.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DevStateProxyLocalBackendsIT {
  @TempDir Path data;

  @Test
  void aKvMountWithoutKvstoreUrlGetsALocalRedis() throws Exception {
    List<String> said = new ArrayList<>();
    StateMount mount =
        new StateMount(
            "counts", "/state/counts", "buffered", "kv-buffered-cas", Map.of("STATE_PREFIX", "c/"));
    ActorSpec actor = new ActorSpec("kv", "m.handle", data, Map.of(), List.of(mount));
    try (DevStateProxy proxy = new DevStateProxy(data, said::add)) {
      Map<String, String> runtimeEnv = proxy.startMounts(actor);
      assertThat(runtimeEnv)
          .containsEntry("SVC_STATE_PROXY_MOUNTS", "counts:/state/counts:write=buffered");
      String url = proxy.localRedisUrl().orElseThrow();
      assertThat(said).anyMatch(line -> line.contains("local Redis at " + url));

      Path socket = Path.of(runtimeEnv.get("SVC_STATE_SOCKET_DIR"), "counts.sock");
      try (UnixHttpClient client = new UnixHttpClient(socket)) {
        HttpResponse put =
            client.send("PUT", "/keys/a/b", Map.of(), "41".getBytes(StandardCharsets.UTF_8));
        assertThat(put.status()).as(put.bodyString()).isIn(200, 201, 204);
        assertThat(client.send("GET", "/keys/a/b", Map.of(), null).bodyString()).isEqualTo("41");
      }
      try (Jedis redis = new Jedis(URI.create(url))) {
        assertThat(redis.hget("c/a/b", "data")).isEqualTo("41");
      }
      // written for replay-eval, which gives its candidate the same backend on a scratch prefix
      Path backends = data.resolve(DevStateProxy.LOCAL_BACKENDS);
      assertThat(io.taskmesh.schemas.Json.MAPPER.readTree(backends.toFile()).at("/kv/url").asText())
          .isEqualTo(url);
      assertThat(java.nio.file.Files.getPosixFilePermissions(backends))
          .isEqualTo(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    }
    assertThat(data.resolve(DevStateProxy.LOCAL_BACKENDS))
        .as("deleted when dev stops")
        .doesNotExist();
  }

  @Test
  void aBlobMountWithoutAnEmulatorHostGetsTheLocalBlobStore() throws Exception {
    List<String> said = new ArrayList<>();
    StateMount mount =
        new StateMount(
            "blobs",
            "/state/blobs",
            "buffered",
            "blob-buffered-cas",
            Map.of("STATE_BUCKET", "dev-blobs"));
    ActorSpec actor = new ActorSpec("blob", "m.handle", data, Map.of(), List.of(mount));
    try (DevStateProxy proxy = new DevStateProxy(data, said::add)) {
      Map<String, String> runtimeEnv = proxy.startMounts(actor);
      URI endpoint = proxy.localBlobEndpoint().orElseThrow();
      assertThat(said).anyMatch(line -> line.contains("local blob store"));

      Path socket = Path.of(runtimeEnv.get("SVC_STATE_SOCKET_DIR"), "blobs.sock");
      try (UnixHttpClient client = new UnixHttpClient(socket)) {
        HttpResponse put =
            client.send("PUT", "/keys/x/y.txt", Map.of(), "hello".getBytes(StandardCharsets.UTF_8));
        assertThat(put.status()).as(put.bodyString()).isIn(200, 201, 204);
        assertThat(client.send("GET", "/keys/x/y.txt", Map.of(), null).bodyString())
            .isEqualTo("hello");
      }
      Storage storage =
          StorageOptions.newBuilder()
              .setHost(endpoint.toString())
              .setProjectId("local")
              .setCredentials(NoCredentials.getInstance())
              .build()
              .getService();
      try {
        assertThat(
                new String(
                    storage.readAllBytes(BlobId.of("dev-blobs", "x/y.txt")),
                    StandardCharsets.UTF_8))
            .isEqualTo("hello");
      } finally {
        storage.close();
      }
    }
  }
}

package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
 * A {@code kv-buffered-cas} mount in dev without {@code KVSTORE_URL}: dev starts a local
 * redis-server and points the connector (a real child JVM) at it. A write through the connector's
 * socket is read back from that Redis with a Redis client of the test's own.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DevStateProxyKvIT {
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
    }
  }
}

package io.taskmesh.connectors;

import static io.taskmesh.connectors.Connectors.JSON;
import static io.taskmesh.connectors.Connectors.attr;
import static io.taskmesh.connectors.Connectors.putExclusive;
import static io.taskmesh.connectors.Connectors.putMeta;
import static io.taskmesh.connectors.Connectors.unique;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.nio.charset.StandardCharsets;
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
import redis.clients.jedis.Jedis;

/** {@code kv-buffered-cas} against a real redis-server, over a real Unix socket. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvConnectorIT {
  private static RedisServerProcess redis;
  private static Jedis raw;
  private Connectors connectors;

  @BeforeAll
  static void startBackend() throws Exception {
    redis = new RedisServerProcess().start();
    raw = new Jedis(redis.url());
  }

  @AfterAll
  static void stopBackend() throws Exception {
    raw.close();
    redis.close();
  }

  @BeforeEach
  void open() throws Exception {
    connectors = new Connectors();
  }

  @AfterEach
  void closeConnectors() throws Exception {
    connectors.close();
  }

  private UnixClient connector(String prefix, URI url) throws Exception {
    return connectors.start(
        ConnectorType.KV_BUFFERED_CAS,
        Map.of("KVSTORE_URL", url.toString(), "STATE_PREFIX", prefix));
  }

  private UnixClient connector(String prefix) throws Exception {
    return connector(prefix, redis.url());
  }

  private static String rawRead(String key) {
    byte[] data =
        raw.hget(key.getBytes(StandardCharsets.UTF_8), "data".getBytes(StandardCharsets.UTF_8));
    return data == null ? null : new String(data, StandardCharsets.UTF_8);
  }

  @Test
  void writeReadStatListDelete() throws Exception {
    String prefix = unique("basic");
    UnixClient c = connector(prefix);
    assertThat(c.get("/healthz").getContentAsString()).contains("\"ready\"");
    assertThat(c.put("/keys/dir/a.txt", "hello").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/dir/sub/b.txt", "bb").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/top%20name*.txt", "t").getStatus()).isEqualTo(204);
    assertThat(rawRead(prefix + "dir/a.txt")).as("a hash under STATE_PREFIX").isEqualTo("hello");
    assertThat(rawRead(prefix + "top name*.txt")).isEqualTo("t");

    ContentResponse read = c.get("/keys/dir/a.txt");
    assertThat(read.getStatus()).isEqualTo(200);
    assertThat(read.getContentAsString()).isEqualTo("hello");
    ContentResponse file = c.head("/keys/dir/a.txt");
    assertThat(file.getHeaders().get("Content-Length")).isEqualTo("5");
    assertThat(file.getHeaders().get("X-Is-File")).isEqualTo("true");
    assertThat(c.head("/keys/dir").getHeaders().get("X-Is-File")).isEqualTo("false");
    assertThat(c.head("/keys/di").getStatus()).as("a prefix that is no directory").isEqualTo(404);
    assertThat(c.get("/keys/nothing").getStatus()).isEqualTo(404);

    JsonNode list = JSON.readTree(c.get("/keys/?prefix=dir/&delimiter=/").getContent());
    assertThat(list.get("keys")).extracting(JsonNode::asText).containsExactly("dir/a.txt");
    assertThat(list.get("prefixes")).extracting(JsonNode::asText).containsExactly("dir/sub/");
    JsonNode root = JSON.readTree(c.get("/keys?prefix=&delimiter=/").getContent());
    assertThat(root.get("keys")).extracting(JsonNode::asText).containsExactly("top name*.txt");
    assertThat(root.get("prefixes")).extracting(JsonNode::asText).containsExactly("dir/");
    JsonNode flat = JSON.readTree(c.get("/keys?prefix=dir/").getContent());
    assertThat(flat.get("keys"))
        .extracting(JsonNode::asText)
        .containsExactly("dir/a.txt", "dir/sub/b.txt");

    assertThat(c.delete("/keys/dir/a.txt").getStatus()).isEqualTo(204);
    assertThat(c.delete("/keys/dir/a.txt").getStatus()).isEqualTo(404);
    assertThat(c.get("/keys/dir/a.txt").getStatus()).isEqualTo(404);
  }

  @Test
  void exclusiveCreateConflicts() throws Exception {
    UnixClient c = connector(unique("x"));
    assertThat(putExclusive(c, "/keys/once", "first").getStatus()).isEqualTo(204);
    assertThat(putExclusive(c, "/keys/once", "second").getStatus()).isEqualTo(409);
    assertThat(c.get("/keys/once").getContentAsString()).isEqualTo("first");
  }

  @Test
  void casWriteFailsWhenTheKeyChangedSinceRead() throws Exception {
    String prefix = unique("cas");
    UnixClient c = connector(prefix);
    UnixClient other = connector(prefix);
    assertThat(c.put("/keys/k", "1").getStatus()).as("never read: unconditional").isEqualTo(204);
    assertThat(other.put("/keys/k", "other writer").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/k", "2").getStatus())
        .as("its own last write is the base, and it changed")
        .isEqualTo(409);
    assertThat(c.get("/keys/k").getContentAsString()).isEqualTo("other writer");
    assertThat(c.put("/keys/k", "3").getStatus()).as("read again: write succeeds").isEqualTo(204);
    assertThat(rawRead(prefix + "k")).isEqualTo("3");

    assertThat(c.get("/keys/fresh").getStatus()).isEqualTo(404);
    assertThat(other.put("/keys/fresh", "created meanwhile").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/fresh", "mine").getStatus())
        .as("read as absent: create only")
        .isEqualTo(409);
    c.get("/keys/fresh");
    assertThat(other.delete("/keys/fresh").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/fresh", "mine").getStatus()).as("deleted since read").isEqualTo(409);
    assertThat(other.put("/keys/fresh", "again").getStatus()).isEqualTo(204);
    assertThat(c.put("/keys/fresh", "mine").getStatus())
        .as("deleted and written again: a new version")
        .isEqualTo(409);
  }

  @Test
  void twoConcurrentCasIncrementersEndWithTheAcknowledgedCount() throws Exception {
    String prefix = unique("count");
    List<UnixClient> clients = List.of(connector(prefix), connector(prefix));
    assertThat(clients.get(0).put("/keys/counter", "0").getStatus()).isEqualTo(204);
    Connectors.Increments result = Connectors.incrementConcurrently(clients, "/keys/counter", 100);
    assertThat(Integer.parseInt(rawRead(prefix + "counter"))).isEqualTo(result.acknowledged());
    assertThat(result.acknowledged() + result.conflicts()).isEqualTo(200);
    assertThat(result.acknowledged()).isPositive();
  }

  @Test
  void ttlIsTheOnlyAttributeAndSurvivesRewrites() throws Exception {
    String prefix = unique("ttl");
    UnixClient c = connector(prefix);
    c.put("/keys/t", "v");
    assertThat(JSON.readTree(c.get("/meta/t").getContent()))
        .extracting(JsonNode::asText)
        .containsExactly("ttl");
    assertThat(attr(c, "t", "ttl")).isEqualTo("-1");
    assertThat(putMeta(c, "t", "ttl", "{\"value\":\"120\"}").getStatus()).isEqualTo(204);
    assertThat(raw.ttl(prefix + "t")).isBetween(1L, 120L);
    assertThat(Long.parseLong(attr(c, "t", "ttl"))).isBetween(1L, 120L);
    assertThat(c.put("/keys/t", "rewritten").getStatus()).isEqualTo(204);
    assertThat(raw.ttl(prefix + "t"))
        .as("kept over a rewrite, like a file's xattrs")
        .isBetween(1L, 120L);
    assertThat(putMeta(c, "t", "ttl", "{\"value\":\"-1\"}").getStatus()).isEqualTo(204);
    assertThat(raw.ttl(prefix + "t")).isEqualTo(-1L);
    assertThat(putMeta(c, "t", "ttl", "{\"value\":\"soon\"}").getStatus()).isEqualTo(400);
    assertThat(putMeta(c, "t", "ttl", "{\"value\":\"0\"}").getStatus()).isEqualTo(400);
    assertThat(c.get("/meta/t?attr=url").getStatus()).as("unsupported for kv").isEqualTo(400);
    assertThat(c.get("/meta/absent?attr=ttl").getStatus()).isEqualTo(404);
    assertThat(putMeta(c, "absent", "ttl", "{\"value\":\"5\"}").getStatus()).isEqualTo(404);
    assertThat(c.get("/meta/absent").getStatus()).isEqualTo(404);
  }

  @Test
  void aValueWrittenByAnotherProgramInAnotherShapeIsRefused() throws Exception {
    String prefix = unique("shape");
    raw.set(prefix + "plain", "a plain string");
    UnixClient c = connector(prefix);
    assertThat(c.get("/keys/plain").getStatus()).isEqualTo(400);
  }

  @Test
  void backendDownAnswers503AndRecoversWithoutRestart() throws Exception {
    try (RedisServerProcess own = new RedisServerProcess().start()) {
      UnixClient c = connector("down/", own.url());
      assertThat(c.put("/keys/k", "before").getStatus()).isEqualTo(204);
      own.stop();
      assertThat(c.get("/keys/k").getStatus()).isEqualTo(503);
      assertThat(c.put("/keys/k", "during").getStatus()).isEqualTo(503);
      assertThat(c.head("/keys/k").getStatus()).isEqualTo(503);
      own.start(); // no persistence: the restarted server is empty
      assertThat(c.get("/keys/k").getStatus()).isEqualTo(404);
      assertThat(c.put("/keys/k", "after").getStatus()).isEqualTo(204);
      assertThat(c.get("/keys/k").getContentAsString()).isEqualTo("after");
    }
  }
}

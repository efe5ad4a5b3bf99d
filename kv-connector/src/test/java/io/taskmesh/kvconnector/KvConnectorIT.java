package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.InputStreamRequestContent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvConnectorIT {
  private static final ObjectMapper M = new ObjectMapper();
  private static KvFixture kv;
  private static UnixHttp http;

  @BeforeAll
  static void start() throws Exception {
    kv =
        KvFixture.start(
            Map.of(
                "STATE_PROXY_PG_INDEXES", "status, (deadline_at)::timestamptz, (n)::numeric",
                "CONNECTOR_SOCKET_MODE", "0660",
                "CONNECTOR_MAX_BODY_BYTES", "4096"));
    http = kv.http;
  }

  @AfterAll
  static void stop() throws Exception {
    kv.close();
  }

  @BeforeEach
  void clean() throws Exception {
    try (Connection c = kv.jdbc();
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE kv");
    }
  }

  static JsonNode json(UnixHttp.Resp r) {
    try {
      return M.readTree(r.body());
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + r.body(), e);
    }
  }

  static void assertError(UnixHttp.Resp r, int status, String error, String messagePart) {
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().get("content-type")).startsWith("application/json");
    JsonNode b = json(r);
    assertThat(b.path("error").asText()).isEqualTo(error);
    assertThat(b.path("message").asText()).contains(messagePart);
  }

  long rowCount() throws Exception {
    try (Connection c = kv.jdbc();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM kv")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  // ---- start-up

  @Test
  void healthzAnswersReady() {
    UnixHttp.Resp r = http.get("/healthz");
    assertThat(r.status()).isEqualTo(200);
    assertThat(json(r).path("status").asText()).isEqualTo("ready");
  }

  @Test
  void startupCreatesTableGinAndExpressionIndexes() throws Exception {
    List<String> defs = new ArrayList<>();
    try (Connection c = kv.jdbc();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE tablename = 'kv'")) {
      while (rs.next()) {
        defs.add(rs.getString(1));
      }
    }
    assertThat(defs)
        .anySatisfy(d -> assertThat(d).startsWith("kv_value_gin").contains("USING gin (value)"));
    assertThat(defs)
        .anySatisfy(
            d -> assertThat(d).startsWith("kv_idx_status ").contains("(value ->> 'status'::text)"));
    assertThat(defs)
        .anySatisfy(
            d ->
                assertThat(d)
                    .startsWith("kv_idx_deadline_at_timestamptz ")
                    .contains("kv_try_timestamptz"));
    assertThat(defs)
        .anySatisfy(d -> assertThat(d).startsWith("kv_idx_n_numeric ").contains("kv_try_numeric"));
    // a second start-up on the same table is a no-op (no migrations, nothing fails)
    kv.store.ensureSchema();
  }

  @Test
  void socketGetsTheConfiguredMode() throws Exception {
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(kv.config.socket())))
        .isEqualTo("rw-rw----");
  }

  @Test
  void staleSocketFileIsRemovedAndLiveOneIsRefused() throws Exception {
    Path dir = Files.createTempDirectory("kvstale");
    Path sock = dir.resolve("s.sock");
    try (ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      ch.bind(UnixDomainSocketAddress.of(sock));
    }
    assertThat(sock).exists(); // a socket file nobody listens on any more
    Map<String, String> env =
        new HashMap<>(
            Map.of("CONNECTOR_SOCKET", sock.toString(), "STATE_PROXY_PG_URL", kv.jdbcUrl));
    KvConfig cfg = KvConfig.fromEnv(env);
    try (KvStore store = new KvStore(cfg);
        KvApp app = new KvApp(cfg, store).start();
        UnixHttp c = new UnixHttp(sock)) {
      assertThat(c.get("/healthz").status()).isEqualTo(200);
      KvApp second = new KvApp(cfg, store);
      assertThatThrownBy(second::start).hasMessageContaining("another process is listening");
    }
    Path regular = dir.resolve("file.sock");
    Files.writeString(regular, "not a socket");
    KvConfig cfg2 =
        KvConfig.fromEnv(
            Map.of("CONNECTOR_SOCKET", regular.toString(), "STATE_PROXY_PG_URL", kv.jdbcUrl));
    try (KvStore store = new KvStore(cfg2)) {
      assertThatThrownBy(() -> new KvApp(cfg2, store).start())
          .hasMessageContaining("not a Unix socket");
    }
    assertThat(Files.readString(regular)).isEqualTo("not a socket");
  }

  // ---- keys

  @Test
  void putGetHeadDeleteRoundTrip() throws Exception {
    UnixHttp.Resp created = http.put("/keys/a/b%20c", "{\"status\":\"pending\",\"n\":1}");
    assertThat(created.status()).as(created.body()).isEqualTo(201);
    assertThat(json(created).path("key").asText()).isEqualTo("a/b c");

    UnixHttp.Resp got = http.get("/keys/a/b%20c");
    assertThat(got.status()).isEqualTo(200);
    JsonNode rec = json(got);
    assertThat(rec.path("key").asText()).isEqualTo("a/b c");
    assertThat(rec.path("value")).isEqualTo(M.readTree("{\"status\":\"pending\",\"n\":1}"));
    String createdAt = rec.path("created_at").asText();
    assertThat(createdAt).isEqualTo(rec.path("updated_at").asText());

    UnixHttp.Resp updated = http.put("/keys/a/b%20c", "[1,2,3]");
    assertThat(updated.status()).isEqualTo(200);
    JsonNode rec2 = json(http.get("/keys/a/b%20c"));
    assertThat(rec2.path("value")).isEqualTo(M.readTree("[1,2,3]"));
    assertThat(rec2.path("created_at").asText()).isEqualTo(createdAt);
    assertThat(rec2.path("updated_at").asText()).isGreaterThan(createdAt);

    assertThat(http.send("HEAD", "/keys/a/b%20c", null).status()).isEqualTo(200);
    assertThat(http.send("HEAD", "/keys/nope", null).status()).isEqualTo(404);

    assertThat(http.delete("/keys/a/b%20c").status()).isEqualTo(204);
    assertError(http.delete("/keys/a/b%20c"), 404, "not_found", "a/b c");
    assertError(http.get("/keys/a/b%20c"), 404, "not_found", "not found");
  }

  @Test
  void scalarsAreJsonToo() {
    assertThat(http.put("/keys/s", "\"text\"").status()).isEqualTo(201);
    assertThat(http.put("/keys/n", "12.5").status()).isEqualTo(201);
    assertThat(json(http.get("/keys/n")).path("value").decimalValue()).isEqualByComparingTo("12.5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"not json", "{", "{\"a\":1} {\"b\":2}", "{'a':1}", "", "   "})
  void nonJsonBodiesAre400AndStoreNothing(String body) throws Exception {
    assertError(http.put("/keys/bad", body), 400, "bad_request", "JSON");
    assertThat(rowCount()).isZero();
  }

  @Test
  void nulCharacterRejectedByPostgresIs400() throws Exception {
    assertError(http.put("/keys/nul", "{\"a\":\"x\\u0000y\"}"), 400, "bad_request", "rejected");
    assertThat(rowCount()).isZero();
  }

  @Test
  void bodiesOverTheLimitAre413AndStoreNothing() throws Exception {
    String big = "{\"a\":\"" + "x".repeat(5000) + "\"}";
    assertError(http.put("/keys/big", big), 413, "payload_too_large", "4096");
    // the same without Content-Length (chunked): the read stops at the limit, and the client
    // still gets its 413 rather than a broken pipe (repeated: that was a race)
    for (int i = 0; i < 20; i++) {
      ContentResponse r =
          http.jetty()
              .newRequest("http://localhost/keys/big")
              .method("PUT")
              .transport(http.transport())
              .body(
                  new InputStreamRequestContent(
                      "application/json", new ByteArrayInputStream(big.getBytes())))
              .timeout(10, TimeUnit.SECONDS)
              .send();
      assertThat(r.getStatus()).isEqualTo(413);
    }
    assertThat(rowCount()).isZero();
    // exactly at the limit is fine
    String atLimit = "{\"a\":\"" + "x".repeat(4096 - 8) + "\"}";
    assertThat(atLimit).hasSize(4096);
    assertThat(http.put("/keys/big", atLimit).status()).isEqualTo(201);
  }

  @Test
  void aBodyTooLargeToDrainIsRefusedAtOnceAndTheConnectionClosed() throws Exception {
    // Content-Length far beyond the limit and what the server drains: the 413 comes before the
    // body is sent (the client writes only the head), then the server closes the connection
    try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(kv.config.socket()))) {
      ch.write(
          ByteBuffer.wrap(
              ("PUT /keys/huge HTTP/1.1\r\nHost: kv\r\nContent-Type: application/json\r\n"
                      + "Content-Length: 50000000\r\n\r\n{\"a\":\"")
                  .getBytes(StandardCharsets.US_ASCII)));
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      ByteBuffer buf = ByteBuffer.allocate(4096);
      while (ch.read(buf.clear()) >= 0) { // ends when the server closes
        answer.write(buf.array(), 0, buf.position());
      }
      String text = answer.toString(StandardCharsets.UTF_8);
      assertThat(text).startsWith("HTTP/1.1 413").contains("payload_too_large");
    }
    assertThat(http.get("/keys/huge").status()).isEqualTo(404);
    assertThat(rowCount()).isZero();
  }

  @Test
  void badKeysAre400() throws Exception {
    assertError(http.put("/keys/" + "k".repeat(1025), "{}"), 400, "bad_request", "1..1024");
    assertError(http.put("/keys/a%01b", "{}"), 400, "bad_request", "control");
    assertThat(rowCount()).isZero();
  }

  @Test
  void keysDecodeAsPathParametersDo() throws Exception {
    // '+' is a plus sign in a path, not a space; %2B is one too; UTF-8 escapes decode
    assertThat(json(http.put("/keys/a+b", "{}")).path("key").asText()).isEqualTo("a+b");
    assertThat(json(http.get("/keys/a%2Bb")).path("key").asText()).isEqualTo("a+b");
    assertThat(json(http.put("/keys/caf%C3%A9", "{}")).path("key").asText()).isEqualTo("caf\u00e9");
    assertThat(rowCount()).isEqualTo(2);
  }

  @Test
  void malformedKeyEscapesAndOtherMethodsAre4xx() throws Exception {
    // Jetty's client refuses such targets, so they go through the raw client (without a body:
    // the server's parser refuses the target before any handler and closes the connection)
    try (UnixHttpClient raw = new UnixHttpClient(kv.config.socket())) {
      for (String target : List.of("/keys/a%zzb", "/keys/a%2")) {
        HttpResponse r = raw.send("GET", target, Map.of(), null);
        assertThat(r.status()).as(target + " " + r.bodyString()).isEqualTo(400);
      }
    }
    assertError(http.post("/keys/a", "{}"), 405, "method_not_allowed", "POST /keys/a");
    assertError(http.send("PATCH", "/keys/a", "{}"), 405, "method_not_allowed", "PATCH");
    assertThat(rowCount()).isZero();
  }

  @Test
  void unknownRoutesAndMethodsGiveJsonErrors() {
    UnixHttp.Resp r = http.get("/nope");
    assertThat(r.status()).isEqualTo(404);
    assertThat(json(r).path("error").asText()).isEqualTo("not_found");
    UnixHttp.Resp p = http.post("/keys/x", "{}");
    assertThat(p.status()).isIn(404, 405);
    assertThat(json(p).has("error")).isTrue();
    assertError(http.post("/healthz", "{}"), 405, "method_not_allowed", "POST /healthz");
    assertError(http.get("/query"), 405, "method_not_allowed", "GET /query");
    assertError(http.send("DELETE", "/keys/", null), 405, "method_not_allowed", "DELETE /keys/");
  }

  @Test
  void malformedQueryStringsAre400AndChangeNothing() throws Exception {
    http.put("/keys/q1", "{\"status\":\"pending\"}");
    try (UnixHttpClient raw = new UnixHttpClient(kv.config.socket())) {
      HttpResponse put =
          raw.send("PUT", "/keys/q1?if_status=%zz", Map.of(), "{\"status\":\"x\"}".getBytes());
      assertThat(put.status()).as(put.bodyString()).isEqualTo(400);
      assertThat(put.bodyString()).contains("percent-encoded");
      HttpResponse list = raw.send("GET", "/keys/?prefix=%g1", Map.of(), null);
      assertThat(list.status()).as(list.bodyString()).isEqualTo(400);
    }
    assertThat(json(http.get("/keys/q1")).path("value").path("status").asText())
        .isEqualTo("pending");
  }

  // ---- conditional writes

  @Test
  void conditionalPutWritesOnlyWhenStatusMatches() throws Exception {
    http.put("/keys/m1", "{\"status\":\"pending\",\"v\":1}");
    UnixHttp.Resp ok = http.put("/keys/m1?if_status=pending", "{\"status\":\"running\",\"v\":2}");
    assertThat(ok.status()).as(ok.body()).isEqualTo(200);
    assertError(
        http.put("/keys/m1?if_status=pending", "{\"status\":\"failed\",\"v\":3}"),
        409,
        "conflict",
        "stored status is 'running'");
    assertThat(json(http.get("/keys/m1")).path("value").path("v").asInt()).isEqualTo(2);
    assertError(
        http.put("/keys/missing?if_status=pending", "{\"status\":\"running\"}"),
        409,
        "conflict",
        "does not exist");
    assertThat(http.get("/keys/missing").status()).isEqualTo(404);
    // a value without a status never matches
    http.put("/keys/nostatus", "{\"v\":1}");
    assertThat(http.put("/keys/nostatus?if_status=pending", "{\"status\":\"x\"}").status())
        .isEqualTo(409);
  }

  @Test
  void ifNoneMatchStarCreatesOnlyOnce() throws Exception {
    UnixHttp.Resp first = http.send("PUT", "/keys/once", "{\"v\":1}", Map.of("If-None-Match", "*"));
    assertThat(first.status()).isEqualTo(201);
    assertError(
        http.send("PUT", "/keys/once", "{\"v\":2}", Map.of("If-None-Match", "*")),
        412,
        "precondition_failed",
        "already exists");
    assertThat(json(http.get("/keys/once")).path("value").path("v").asInt()).isEqualTo(1);
  }

  @Test
  void concurrentConditionalWritersNeverBothWin() throws Exception {
    for (int round = 0; round < 20; round++) {
      String key = "/keys/race" + round;
      http.put(key, "{\"status\":\"pending\"}");
      List<Thread> threads = new ArrayList<>();
      List<Integer> codes = java.util.Collections.synchronizedList(new ArrayList<>());
      for (int i = 0; i < 4; i++) {
        int w = i;
        Thread t =
            new Thread(
                () ->
                    codes.add(
                        http.put(key + "?if_status=pending", "{\"status\":\"s" + w + "\"}")
                            .status()));
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) {
        t.join();
      }
      assertThat(codes).containsOnly(200, 409);
      assertThat(codes.stream().filter(c -> c == 200).count()).isEqualTo(1);
    }
  }

  // ---- list

  @Test
  void listByPrefixInKeyOrderWithLiteralWildcards() throws Exception {
    for (String k : List.of("mesh/2", "mesh/1", "mesh/10", "other/1", "me%x", "me_x", "mexx")) {
      http.put("/keys/" + k.replace("%", "%25"), "{}");
    }
    assertThat(json(http.get("/keys/?prefix=mesh/")).path("keys").toString())
        .isEqualTo("[\"mesh/1\",\"mesh/10\",\"mesh/2\"]");
    assertThat(json(http.get("/keys/?prefix=me%25")).path("keys").toString())
        .isEqualTo("[\"me%x\"]");
    assertThat(json(http.get("/keys/?prefix=me_")).path("keys").toString()).isEqualTo("[\"me_x\"]");
    assertThat(json(http.get("/keys/")).path("keys")).hasSize(7);
    assertThat(json(http.get("/keys?prefix=")).path("keys")).hasSize(7);
    JsonNode folded = json(http.get("/keys/?delimiter=/"));
    assertThat(folded.path("prefixes").toString()).isEqualTo("[\"mesh/\",\"other/\"]");
    assertThat(folded.path("keys").toString()).isEqualTo("[\"me%x\",\"me_x\",\"mexx\"]");
    assertThat(json(http.get("/keys/?prefix=mesh/&limit=2")).path("keys")).hasSize(2);
    assertError(http.get("/keys/?limit=-1"), 400, "bad_request", "limit");
    assertError(http.get("/keys/?limit=x"), 400, "bad_request", "limit");
  }
}

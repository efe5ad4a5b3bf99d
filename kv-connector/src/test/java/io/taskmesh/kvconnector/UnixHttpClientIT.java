package io.taskmesh.kvconnector;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.unixhttp.HttpResponse;
import io.taskmesh.unixhttp.UnixHttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The keep-alive Unix-socket client against the real connector (raw socket peers: unix-http's
 * UnixHttpClientIT).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class UnixHttpClientIT {
  @Test
  void reusesOneConnectionForSequentialRequestsOfEveryKind() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of("CONNECTOR_MAX_BODY_BYTES", "4096"));
        UnixHttpClient c = new UnixHttpClient(kv.config.socket())) {
      assertThat(
              c.send(
                      "PUT",
                      "/keys/a%2Fb",
                      null,
                      "{\"status\":\"x\",\"s\":\"\u00e9\"}".getBytes(UTF_8))
                  .status())
          .isEqualTo(201);
      for (int i = 0; i < 50; i++) {
        HttpResponse g = c.send("GET", "/keys/a%2Fb", null, null);
        assertThat(g.status()).isEqualTo(200);
        assertThat(g.bodyString()).contains("\"s\": \"\u00e9\"");
      }
      assertThat(c.send("HEAD", "/keys/a%2Fb", null, null).header("x-is-file")).isEqualTo("true");
      assertThat(c.send("GET", "/keys/missing", null, null).status()).isEqualTo(404);
      assertThat(c.send("PUT", "/keys/a%2Fb?if_status=y", null, "{}".getBytes(UTF_8)).status())
          .isEqualTo(409);
      assertThat(
              c.send("PUT", "/keys/a%2Fb", Map.of("If-None-Match", "*"), "{}".getBytes(UTF_8))
                  .status())
          .isEqualTo(412);
      assertThat(c.send("PUT", "/keys/bad", null, "{'a':1}".getBytes(UTF_8)).status())
          .isEqualTo(400);
      assertThat(
              c.send(
                      "POST",
                      "/query",
                      null,
                      "{\"prefix\":\"a\",\"count\":true}".getBytes(UTF_8),
                      true)
                  .bodyString())
          .contains("\"total\":1");
      assertThat(c.send("DELETE", "/keys/a%2Fb", null, null).status()).isEqualTo(204);
      assertThat(c.connectionsOpened()).isEqualTo(1);
      // a 413 may make the server close the connection: the next request still works
      assertThat(c.send("PUT", "/keys/big", null, new byte[8192]).status()).isEqualTo(413);
      assertThat(c.send("GET", "/healthz", null, null).status()).isEqualTo(200);
    }
  }

  @Test
  void concurrentCallersShareThePool() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of());
        UnixHttpClient c = new UnixHttpClient(kv.config.socket())) {
      ExecutorService ex = Executors.newFixedThreadPool(8);
      List<Future<Integer>> fs = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int tt = t;
        fs.add(
            ex.submit(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    String key = "/keys/t" + tt + "-" + i;
                    if (c.send("PUT", key, null, ("{\"i\":" + i + "}").getBytes(UTF_8)).status()
                            != 201
                        || !c.send("GET", key, null, null)
                            .bodyString()
                            .contains("\"i\": " + i + "}")) {
                      return 1;
                    }
                  }
                  return 0;
                }));
      }
      for (Future<Integer> f : fs) {
        assertThat(f.get()).isZero();
      }
      ex.shutdown();
      assertThat(c.connectionsOpened()).isLessThanOrEqualTo(8);
    }
  }
}

package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.devkit.LocalPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Postgres really stops under write load: requests answer 503 quickly, the connector keeps running,
 * recovers by itself once Postgres is back, and every acknowledged write is there afterwards.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class KvOutageIT {

  @Test
  void postgresRestartUnderLoad() throws Exception {
    try (KvFixture kv = KvFixture.start(Map.of("STATE_PROXY_PG_INDEXES", "status"))) {
      Map<String, String> acked = new ConcurrentHashMap<>();
      ConcurrentLinkedQueue<Long> unavailableMillis = new ConcurrentLinkedQueue<>();
      ConcurrentLinkedQueue<String> unexpected = new ConcurrentLinkedQueue<>();
      AtomicLong ackedAfterRestart = new AtomicLong();
      AtomicBoolean restarted = new AtomicBoolean();
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        Thread t =
            new Thread(
                () -> {
                  for (int i = 0; !stop.get(); i++) {
                    String key = "load/" + writer + "/" + i;
                    String value =
                        "{\"status\":\"pending\",\"writer\":" + writer + ",\"i\":" + i + "}";
                    long t0 = System.nanoTime();
                    UnixHttp.Resp r = kv.http.put("/keys/" + key, value);
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    if (r.status() == 201 || r.status() == 200) {
                      acked.put(key, value);
                      if (restarted.get()) {
                        ackedAfterRestart.incrementAndGet();
                      }
                    } else if (r.status() == 503) {
                      unavailableMillis.add(ms);
                      assertThat(r.body()).contains("\"error\":\"unavailable\"");
                    } else {
                      unexpected.add(r.status() + " " + r.body());
                    }
                  }
                },
                "writer-" + w);
        t.start();
        writers.add(t);
      }
      try {
        Await.until(() -> acked.size() >= 300, Duration.ofSeconds(30), "writes before the outage");
        LocalPostgres.shared().stop();
        Await.until(
            () -> unavailableMillis.size() >= 40, Duration.ofSeconds(30), "503s during the outage");
        assertThat(kv.http.get("/healthz").status()).isEqualTo(503);
        LocalPostgres.shared().restart();
        restarted.set(true);
        Await.until(
            () -> ackedAfterRestart.get() >= 300,
            Duration.ofSeconds(60),
            "writes after Postgres came back");
      } finally {
        stop.set(true);
        for (Thread t : writers) {
          t.join(20_000);
        }
      }
      assertThat(unexpected).as("only 2xx and 503 answers").isEmpty();
      // quickly: bounded by the pool's acquisition timeout (1 s) plus connect time, not a hang
      List<Long> sorted = new ArrayList<>(unavailableMillis);
      sorted.sort(Long::compare);
      System.out.printf(
          "outage: %d acked, %d x 503, 503 latency p50 %d ms, max %d ms%n",
          acked.size(),
          sorted.size(),
          sorted.get(sorted.size() / 2),
          sorted.get(sorted.size() - 1));
      assertThat(sorted.get(sorted.size() - 1)).isLessThan(5_000);
      assertThat(kv.http.get("/healthz").status()).isEqualTo(200);
      // nothing acknowledged is lost
      try (Connection c = kv.jdbc();
          PreparedStatement ps =
              c.prepareStatement("SELECT value = ?::jsonb FROM kv WHERE key = ?")) {
        for (Map.Entry<String, String> e : acked.entrySet()) {
          ps.setString(1, e.getValue());
          ps.setString(2, e.getKey());
          try (ResultSet rs = ps.executeQuery()) {
            assertThat(rs.next()).as("acknowledged key %s present", e.getKey()).isTrue();
            assertThat(rs.getBoolean(1)).as("acknowledged value of %s intact", e.getKey()).isTrue();
          }
        }
      }
    }
  }
}

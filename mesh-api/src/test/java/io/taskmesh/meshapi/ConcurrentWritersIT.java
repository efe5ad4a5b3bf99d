package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.MeshStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Many writers on both replicas post conflicting statuses to the same envelopes at once. Watchers
 * (polling reads and an SSE client) must never see the status order go down, and a terminal status,
 * once seen, never changes.
 */
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class ConcurrentWritersIT {
  private static MeshFixture f;
  private static final String P = "/api/v1/mesh";
  private static final List<String> STATUSES =
      List.of(
          "pending", "running", "paused", "running", "paused", "succeeded", "failed", "canceled");

  @BeforeAll
  static void start() throws Exception {
    f = new MeshFixture(Map.of(), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    f.close();
  }

  @Test
  void concurrentConflictingWritersNeverMoveAStatusBackwards() throws Exception {
    for (int round = 0; round < 8; round++) {
      MeshFixture.Resp created = f.send("POST", f.a.ext(P + "/?actor=echo"), "{}");
      String id = Json.read(created.body(), JsonNode.class).path("id").asText();
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      AtomicBoolean writing = new AtomicBoolean(true);
      List<String> seenByReader = new ArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                int last = 0;
                String terminal = null;
                while (writing.get()) {
                  JsonNode g =
                      Json.read(f.send("GET", f.b.ext(P + "/" + id), null).body(), JsonNode.class);
                  String s = g.path("status").asText();
                  seenByReader.add(s);
                  if (MeshStatus.of(s).order() < last) {
                    problems.add("read went backwards to " + s + " after order " + last);
                  }
                  if (terminal != null && !terminal.equals(s)) {
                    problems.add("terminal " + terminal + " overwritten by " + s);
                  }
                  last = MeshStatus.of(s).order();
                  if (MeshStatus.of(s).isTerminal()) {
                    terminal = s;
                  }
                }
              });
      try (SseReader sse = new SseReader(f.http, f.a.ext(P + "/" + id + "/events"))) {
        reader.start();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 6; w++) {
          MeshFixture.Replica via = w % 2 == 0 ? f.a : f.b;
          Random rnd = new Random(round * 31L + w);
          Thread t =
              new Thread(
                  () -> {
                    try {
                      go.await();
                    } catch (InterruptedException e) {
                      return;
                    }
                    for (int i = 0; i < 12; i++) {
                      String s = STATUSES.get(rnd.nextInt(STATUSES.size()));
                      // terminal statuses are rarer, so that the envelope spends time in the middle
                      if (MeshStatus.of(s).isTerminal() && rnd.nextInt(3) != 0) {
                        s = "running";
                      }
                      MeshFixture.Resp r =
                          f.send(
                              "POST",
                              via.internal(P + "/" + id + "/events"),
                              "{\"type\":\"status\",\"status\":\""
                                  + s
                                  + "\",\"data\":{\"progress\":"
                                  + rnd.nextInt(100)
                                  + "}}");
                      if (r.status() != 204) {
                        problems.add("writer got " + r.status() + " " + r.body());
                      }
                    }
                  });
          t.start();
          writers.add(t);
        }
        go.countDown();
        for (Thread t : writers) {
          t.join();
        }
        writing.set(false);
        reader.join();
        // finish it, so the SSE stream ends
        f.send(
            "POST",
            f.b.internal(P + "/" + id + "/events"),
            "{\"type\":\"status\",\"status\":\"failed\"}");
        assertThat(sse.awaitEnd(20)).isTrue();
        int last = -1;
        int terminalEvents = 0;
        for (SseReader.Frame fr : sse.all) {
          if (!"status".equals(fr.event())) {
            continue;
          }
          String s = Json.read(fr.data(), JsonNode.class).path("status").asText();
          assertThat(MeshStatus.of(s).order())
              .as("SSE order of %s after %d", s, last)
              .isGreaterThanOrEqualTo(last);
          last = MeshStatus.of(s).order();
          if (MeshStatus.of(s).isTerminal()) {
            terminalEvents++;
          }
        }
        assertThat(terminalEvents).isEqualTo(1);
      }
      assertThat(problems).isEmpty();
      String finalStatus =
          Json.read(f.send("GET", f.a.ext(P + "/" + id), null).body(), JsonNode.class)
              .path("status")
              .asText();
      assertThat(MeshStatus.of(finalStatus).isTerminal()).isTrue();
      assertThat(seenByReader).isNotEmpty();
    }
  }
}

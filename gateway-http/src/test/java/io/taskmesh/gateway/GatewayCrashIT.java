package io.taskmesh.gateway;

import static io.taskmesh.gateway.TaskHttp.await;
import static io.taskmesh.gateway.TaskHttp.get;
import static io.taskmesh.gateway.TaskHttp.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.SseReader;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a gateway replica (a child JVM running {@link Main}) in the middle of a run of many
 * tasks, then a restart: no task lost, none with a wrong final state, and SSE clients that
 * reconnect with Last-Event-ID get every update exactly once.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class GatewayCrashIT {
  private static final int TASKS = 40;
  private static final String[][] STEPS = {
    {"", "first", "second", "received"},
    {"", "first", "second", "processing"},
    {"", "first", "second", "completed"},
    {"first", "second", "", "received"},
    {"first", "second", "", "processing"},
    {"first", "second", "", "completed"}
  };
  @TempDir Path dir;

  @Test
  void killDashNineMidRunLosesNothing() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows, "flows:\n  - {name: two, entrypoint: first, route_next: [second], mcp: {}}\n");
    String prefix = "crash-" + UUID.randomUUID().toString().substring(0, 8);
    Map<String, String> envA =
        TaskHttp.env(prefix, dir.resolve("state-a"), flows, TaskHttp.freePort());
    Map<String, String> envB =
        TaskHttp.env(prefix, dir.resolve("state-b"), flows, TaskHttp.freePort());
    envA.put("SVC_TASK_TOPIC_PARTITIONS", "4");
    envB.put("SVC_TASK_TOPIC_PARTITIONS", "4");
    String baseB = "http://127.0.0.1:" + envB.get("SVC_PORT");
    try (Gateway a = TaskHttp.start(envA)) {
      String baseA = "http://127.0.0.1:" + a.port();
      Process b = startChild(envB, baseB);
      try {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
          ids.add(TaskHttp.callTool(baseA, "two"));
        }
        List<String> watched = ids.subList(0, 6);
        for (String id : watched) {
          await(baseB + "/tasks/" + id, n -> true, Duration.ofSeconds(60));
        }
        List<SseReader> clients = new ArrayList<>();
        for (String id : watched) {
          clients.add(SseReader.open(baseB + "/mesh/" + id + "/stream", null));
        }
        // first half of the run, reports spread over both replicas
        for (int s = 0; s < 3; s++) {
          for (int i = 0; i < TASKS; i++) {
            report(i % 2 == 0 ? baseB : baseA, baseA, ids.get(i), STEPS[s]);
          }
        }
        Map<String, String> lastSeen = new LinkedHashMap<>();
        Map<String, List<String>> seen = new LinkedHashMap<>();
        for (int c = 0; c < clients.size(); c++) {
          List<String> got = new ArrayList<>();
          SseReader.Event e;
          while (got.size() < 2 && (e = clients.get(c).next(Duration.ofSeconds(20))) != null) {
            if (e.event().equals("update")) {
              got.add(e.id());
            }
          }
          seen.put(watched.get(c), got);
        }

        b.destroyForcibly(); // SIGKILL
        b.waitFor();
        for (int c = 0; c < clients.size(); c++) {
          // drain what arrived before the kill; the stream then ends
          SseReader.Event e;
          while ((e = clients.get(c).next(Duration.ofSeconds(5))) != null) {
            if (e.event().equals("update")) {
              seen.get(watched.get(c)).add(e.id());
            }
          }
          clients.get(c).close();
          List<String> got = seen.get(watched.get(c));
          lastSeen.put(watched.get(c), got.isEmpty() ? null : got.get(got.size() - 1));
        }
        // second half while B is down (reports meant for B go to A, as a retrying sidecar would)
        for (int s = 3; s < STEPS.length; s++) {
          for (int i = 0; i < TASKS; i++) {
            report(i % 2 == 0 ? baseB : baseA, baseA, ids.get(i), STEPS[s]);
          }
        }
        for (int i = 0; i < TASKS; i++) {
          String body =
              i % 3 == 0
                  ? "{\"status\":\"failed\",\"error\":\"e" + i + "\"}"
                  : "{\"status\":\"succeeded\",\"result\":{\"i\":" + i + "}}";
          assertThat(post(baseA + "/mesh/" + ids.get(i) + "/final", body).statusCode())
              .isEqualTo(200);
        }

        b = startChild(envB, baseB);
        for (int i = 0; i < TASKS; i++) {
          String want = i % 3 == 0 ? "failed" : "succeeded";
          for (String base : List.of(baseA, baseB)) {
            JsonNode t =
                await(
                    base + "/tasks/" + ids.get(i),
                    n -> n.get("status").asText().equals(want),
                    Duration.ofSeconds(90));
            assertThat(t.get("progress_percent").asDouble())
                .isEqualTo(100.0); // every step reported, so 100 either way
          }
        }
        for (String id : watched) {
          try (SseReader again =
              SseReader.open(baseB + "/mesh/" + id + "/stream", lastSeen.get(id))) {
            List<String> rest =
                again.readUntilClosed(Duration.ofSeconds(30)).stream()
                    .filter(e -> e.event().equals("update"))
                    .map(SseReader.Event::id)
                    .toList();
            List<String> all = new ArrayList<>(seen.get(id));
            all.addAll(rest);
            List<String> expected = new ArrayList<>();
            for (int n = 1; n <= 2 + STEPS.length; n++) {
              expected.add(Integer.toString(n)); // created, 6 progress steps, final
            }
            assertThat(all)
                .as("task %s: before the kill %s, after %s", id, seen.get(id), rest)
                .containsExactlyElementsOf(expected);
          }
        }
      } finally {
        b.destroyForcibly();
        b.waitFor();
      }
    }
  }

  /** Posts to {@code preferred}; when that replica is down, to {@code fallback}. */
  private static void report(String preferred, String fallback, String id, String[] s)
      throws Exception {
    String body = TaskHttp.progress(s[0], s[1], s[2], s[3]);
    HttpResponse<String> r;
    try {
      r = post(preferred + "/mesh/" + id + "/progress", body);
    } catch (java.io.IOException down) {
      r = post(fallback + "/mesh/" + id + "/progress", body);
    }
    assertThat(r.statusCode()).isEqualTo(200);
  }

  private Process startChild(Map<String, String> env, String base) throws Exception {
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("b.log").toFile()));
    pb.environment().putAll(env);
    Process p = pb.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      if (!p.isAlive()) {
        throw new AssertionError(
            "gateway child exited "
                + p.exitValue()
                + ": "
                + Files.readString(dir.resolve("b.log")));
      }
      try {
        if (get(base + "/health").statusCode() == 200) {
          return p;
        }
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new AssertionError("gateway child not healthy in 90 s");
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }
}

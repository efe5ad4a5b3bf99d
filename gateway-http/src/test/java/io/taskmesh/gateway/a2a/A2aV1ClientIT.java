package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official A2A JS SDK 1.x client ({@code /work/shared/tools/clients/a2a1}, or {@code
 * -Da2a1.client.dir}), unmodified, against a gateway with one skill: it reads the card, picks the
 * 1.0 JSON-RPC interface and runs SendMessage, SendStreamingMessage, GetTask, ListTasks and GetTask
 * of an unknown id. A driver plays the worker: it finishes every task it sees open. Skipped (with
 * the reason) when the client folder or node is not there.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class A2aV1ClientIT {
  @TempDir static Path dir;
  static A2aHarness h;
  static Path clientDir;

  @BeforeAll
  static void start() throws Exception {
    clientDir = Path.of(System.getProperty("a2a1.client.dir", "/work/shared/tools/clients/a2a1"));
    Assumptions.assumeTrue(
        Files.isRegularFile(clientDir.resolve("a2a-client-v1.mjs")),
        "no A2A 1.x client at " + clientDir);
    if (!Files.isDirectory(clientDir.resolve("node_modules/@a2a-js/sdk"))) {
      Process npm =
          new ProcessBuilder("npm", "install", "--no-audit", "--no-fund")
              .directory(clientDir.toFile())
              .redirectErrorStream(true)
              .start();
      String log = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      Assumptions.assumeTrue(
          npm.waitFor(120, TimeUnit.SECONDS) && npm.exitValue() == 0, "npm install: " + log);
    }
    h =
        new A2aHarness(
            dir,
            """
        flows:
          - name: echo
            entrypoint: echo
            a2a: {}
        """,
            Map.of());
  }

  @AfterAll
  static void stop() {
    if (h != null) {
      h.close();
    }
  }

  @Test
  void theOfficialOnePointZeroClientCompletesEveryStep() throws Exception {
    String token = h.token("v1-client");
    ScheduledExecutorService worker = Executors.newSingleThreadScheduledExecutor();
    worker.scheduleWithFixedDelay(() -> finishOpenTasks(token), 50, 100, TimeUnit.MILLISECONDS);
    Process node =
        new ProcessBuilder("node", "a2a-client-v1.mjs", "--base", h.base, "--token", token)
            .directory(clientDir.toFile())
            .redirectErrorStream(true)
            .start();
    String out;
    try {
      out = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(node.waitFor(90, TimeUnit.SECONDS)).isTrue();
    } finally {
      node.destroy();
      worker.shutdownNow();
    }
    assertThat(out)
        .contains(
            "ok: SendMessage",
            "ok: SendStreamingMessage",
            "ok: GetTask",
            "ok: ListTasks",
            "ok: GetTask of an unknown id",
            "A2A v1 CLIENT: ALL OK");
    assertThat(node.exitValue()).as(out).isZero();
    // the task the client made on 1.0 is the same task on 0.3: same id, same (completed) state
    JsonNode listed =
        h.call("tasks/list", "{}", "Authorization", "Bearer " + token).get("result").get("tasks");
    assertThat(listed).hasSize(2);
    listed.forEach(t -> assertThat(t.at("/status/state").asText()).isEqualTo("completed"));
  }

  private static void finishOpenTasks(String token) {
    try {
      JsonNode tasks =
          h.call("tasks/list", "{}", "Authorization", "Bearer " + token)
              .path("result")
              .path("tasks");
      for (JsonNode t : tasks) {
        String state = t.at("/status/state").asText();
        if (state.equals("submitted") || state.equals("working")) {
          h.finish(t.get("id").asText(), "{\"echo\":\"done\"}");
        }
      }
    } catch (Exception e) {
      // the next round tries again
    }
  }
}

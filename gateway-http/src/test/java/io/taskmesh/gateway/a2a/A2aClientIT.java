package io.taskmesh.gateway.a2a;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real A2A 0.3 client ({@code @a2a-js/sdk}, pinned in src/test/a2a-client/package-lock.json)
 * against the gateway: agent card, message/stream with FLY chunks, tasks/get, message/send +
 * tasks/cancel, tasks/resubscribe, task-not-found. It names no skill, as a standard client does:
 * its messages go to the default skill of two. {@code npm ci} installs it on first run; the test is
 * skipped (with the reason) only when node or npm cannot run here.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class A2aClientIT {
  @TempDir static Path dir;
  static A2aHarness h;
  static Path clientDir;

  @BeforeAll
  static void start() throws Exception {
    clientDir = locateClientDir();
    ensureInstalled(clientDir);
    h =
        new A2aHarness(
            dir,
            """
        flows:
          - name: echo
            entrypoint: echo
            a2a: {default: true}
          - name: other
            entrypoint: other
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

  static Path locateClientDir() {
    Path p = Path.of("src/test/a2a-client").toAbsolutePath();
    if (!Files.isDirectory(p)) {
      p = Path.of("gateway-http/src/test/a2a-client").toAbsolutePath();
    }
    return p;
  }

  static void ensureInstalled(Path clientDir) throws Exception {
    if (Files.isDirectory(clientDir.resolve("node_modules/@a2a-js/sdk"))) {
      return;
    }
    Process npm;
    try {
      npm =
          new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
              .directory(clientDir.toFile())
              .redirectErrorStream(true)
              .start();
    } catch (java.io.IOException e) {
      Assumptions.abort(
          "npm is not available, skipping the @a2a-js/sdk client check: " + e.getMessage());
      return;
    }
    String log = new String(npm.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    boolean done = npm.waitFor(120, TimeUnit.SECONDS);
    Assumptions.assumeTrue(
        done && npm.exitValue() == 0,
        "npm ci failed in " + clientDir + ", skipping the @a2a-js/sdk client check:\n" + log);
  }

  @Test
  void theA2aJsClientSendsStreamsGetsCancelsAndResubscribes() throws Exception {
    Process node =
        new ProcessBuilder("node", "a2a-check.mjs", h.base, A2aHarness.API_KEY)
            .directory(clientDir.toFile())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    Map<String, JsonNode> steps = new LinkedHashMap<>();
    List<String> lines = new ArrayList<>();
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        lines.add(line);
        JsonNode step = Json.MAPPER.readTree(line);
        steps.put(step.get("step").asText(), step);
        String need = step.path("need").asText("");
        String id = step.path("taskId").asText("");
        if (need.equals("fly-and-final")) {
          h.progress(id, "echo", "received");
          h.post("/mesh/" + id + "/fly", "{\"partial\":true,\"text\":\"to\"}");
          h.post("/mesh/" + id + "/fly", "{\"partial\":true,\"text\":\"kens\"}");
          h.finish(id, "{\"echo\":\"stream me\"}");
        } else if (need.equals("final")) {
          h.finish(id, "{\"echo\":\"resubscribe me\"}");
        }
      }
    } finally {
      node.destroy();
    }
    assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(node.exitValue()).as(String.join("\n", lines)).isZero();

    assertThat(steps.get("card").get("protocolVersion").asText()).isEqualTo("0.3.0");
    assertThat(steps.get("card").get("skills").toString()).isEqualTo("[\"echo\",\"other\"]");
    List<String> kinds = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    JsonNode result = null;
    for (JsonNode e : steps.get("stream-done").get("events")) {
      kinds.add(e.get("kind").asText());
      if (e.at("/artifact/artifactId").asText().equals("result")) {
        result = e.get("artifact");
      }
      if (e.get("kind").asText().equals("artifact-update")
          && e.at("/artifact/artifactId").asText().equals("fly-stream")) {
        e.at("/artifact/parts").forEach(p -> text.append(p.path("text").asText("")));
      }
    }
    // the working status travels through the task log, FLY does not: their relative order is free
    assertThat(kinds).hasSize(7);
    assertThat(kinds.get(0)).isEqualTo("task");
    assertThat(kinds.subList(1, 4))
        .containsExactlyInAnyOrder("status-update", "artifact-update", "artifact-update");
    // the tokens' artifact closes, then the result's own artifact, then the final status
    assertThat(kinds.subList(4, 7))
        .containsExactly("artifact-update", "artifact-update", "status-update");
    assertThat(text.toString()).isEqualTo("tokens");
    assertThat(result).as("the result artifact").isNotNull();
    assertThat(result.at("/parts/0/data/echo").asText()).isEqualTo("stream me");
    assertThat(steps.get("get").get("state").asText()).isEqualTo("completed");
    assertThat(steps.get("get").get("history").asInt()).isEqualTo(1);
    assertThat(steps.get("cancel").get("sentState").asText()).isEqualTo("submitted");
    assertThat(steps.get("cancel").get("state").asText()).isEqualTo("canceled");
    JsonNode resub = steps.get("resubscribe-done").get("events");
    assertThat(resub.get(0).get("kind").asText()).isEqualTo("task");
    assertThat(resub.get(resub.size() - 1).at("/status/state").asText()).isEqualTo("completed");
    assertThat(resub.get(resub.size() - 1).get("final").asBoolean()).isTrue();
    assertThat(steps.get("unknown").get("error").asText()).isNotEmpty();
    assertThat(steps.get("end")).isNotNull();
  }
}

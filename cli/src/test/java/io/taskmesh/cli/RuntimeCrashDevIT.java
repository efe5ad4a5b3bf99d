package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.Await;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A handler that takes its runtime down ({@code os._exit}) on a real dev stack: dev starts the
 * runtime again within seconds, the sidecar calls again, and after {@code SVC_MAX_DELIVERIES}
 * crashes the task fails {@code RuntimeCrashed}, as the spec says, long before its deadline (600 s,
 * beyond this test's own timeout). Before, nobody restarted the runtime and the task failed at its
 * deadline with "no final report".
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RuntimeCrashDevIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir static Path data;
  private static DevStack stack;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    Path config = Path.of(RuntimeCrashDevIT.class.getResource("/runtime-crash-dev").toURI());
    stack = TestStacks.onSharedBroker(config, data, "crash");
    base = stack.gatewayUrl();
  }

  @AfterAll
  static void stop() {
    if (stack != null) {
      stack.close();
    }
  }

  @Test
  void aRuntimeThatDiesIsRestartedAndItsEnvelopeFailsRuntimeCrashed() throws Exception {
    long t0 = System.nanoTime();
    String crashing = callTool("crash", "{\"crash\":true}");
    JsonNode task = awaitFinal(crashing);
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertThat(task.path("status").asText()).as(task.toString()).isEqualTo("failed");
    String view = task + " " + getJson("/mesh/" + crashing);
    // RuntimeCrashed's text, in our words; not the deadline's "no final report"
    assertThat(task.path("error").asText())
        .startsWith("runtime crashed 3 times on this envelope: ")
        .doesNotContain("Exception");
    assertThat(view).doesNotContain("deadline").doesNotContain("no final report");
    System.out.printf("RuntimeCrashDevIT: crashed three times, failed after %.1f s%n", seconds);

    // the actor serves again: its runtime was started anew after the last crash
    JsonNode fine = awaitFinal(callTool("crash", "{\"crash\":false}"));
    assertThat(fine.path("status").asText()).as(fine.toString()).isEqualTo("succeeded");
  }

  private static JsonNode awaitFinal(String id) {
    return Await.until(
        () -> getJson("/tasks/" + id),
        t -> TaskStatus.fromWire(t.path("status").asText()).isFinal(),
        Duration.ofSeconds(120),
        "task " + id + " never ended");
  }

  private static String callTool(String name, String args) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"name\":\"" + name + "\",\"arguments\":" + args + "}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Json.MAPPER.readTree(r.body());
    return Json.MAPPER
        .readTree(result.get("content").get(0).get("text").asText())
        .get("task_id")
        .asText();
  }

  private static JsonNode getJson(String path) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      // the task view catches up with a new task a moment later: "not yet" to Await.until
      throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
    }
    return Json.MAPPER.readTree(r.body());
  }
}

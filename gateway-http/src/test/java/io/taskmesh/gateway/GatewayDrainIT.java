package io.taskmesh.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real gateway on the shared broker, stopped while an SSE client watches a task that is still
 * pending (no sidecar runs), and an A2A client streams another ({@code message/stream}): both are
 * counted in {@code taskmesh_sse_clients}; on close each gets its events, then {@code retry: 1000},
 * then the end of the stream, and the stop took at most the drain's bound; {@code /ready} answered
 * 200 before.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class GatewayDrainIT {
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  @TempDir Path dir;

  @Test
  void closeTellsEveryStreamToRetryThenEndsIt() throws Exception {
    Path flows = dir.resolve("flows.yaml");
    Files.writeString(
        flows,
        "flows:\n  - name: echo\n    entrypoint: echo\n    a2a: {}\n    mcp:\n"
            + "      inputSchema: {type: object}\n");
    Gateway gateway =
        TaskHttp.start(
            TaskHttp.env("drain-it-" + UUID.randomUUID(), dir.resolve("state"), flows, 0));
    String base = "http://127.0.0.1:" + gateway.port();
    try {
      HttpResponse<String> ready = TaskHttp.get(base + "/ready");
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(200);
      assertThat(ready.body()).contains("\"kafka\":{\"ok\":true}", "\"streams\":{\"ok\":true}");

      String id = TaskHttp.callTool(base, "echo");
      Await.until(
          () -> TaskHttp.get(base + "/tasks/" + id).statusCode() == 200,
          Duration.ofSeconds(30),
          "the task is folded");

      List<String> lines = new CopyOnWriteArrayList<>();
      HttpResponse<InputStream> sse =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(base + "/stream/" + id))
                  .header("Accept", "text/event-stream")
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(sse.statusCode()).isEqualTo(200);
      CompletableFuture<Void> ended = readLines(sse.body(), lines);
      Await.until(
          () -> lines.stream().anyMatch(l -> l.startsWith("data:")),
          Duration.ofSeconds(20),
          "the task's history arrives");

      // an A2A stream (message/stream) of another pending task: drained the same way
      List<String> a2aLines = new CopyOnWriteArrayList<>();
      HttpResponse<InputStream> a2a =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(base + "/a2a/"))
                  .header("Content-Type", "application/json")
                  .header("Accept", "text/event-stream")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"message/stream\","
                              + "\"params\":{\"message\":{\"kind\":\"message\",\"role\":\"user\","
                              + "\"messageId\":\"m-drain\",\"parts\":[{\"kind\":\"text\","
                              + "\"text\":\"hi\"}]},\"metadata\":{\"skill\":\"echo\"}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      assertThat(a2a.statusCode()).isEqualTo(200);
      CompletableFuture<Void> a2aEnded = readLines(a2a.body(), a2aLines);
      Await.until(
          () -> a2aLines.stream().anyMatch(l -> l.startsWith("data:")),
          Duration.ofSeconds(20),
          "the A2A stream's first event arrives");
      String metrics = TaskHttp.get(base + "/metrics").body();
      assertThat(metrics)
          .as("both streams counted in taskmesh_sse_clients")
          .containsPattern("taskmesh_sse_clients\\{[^}]*endpoint=\"sse\"[^}]*} [1-9]")
          .containsPattern("taskmesh_sse_clients\\{[^}]*endpoint=\"a2a-sse\"[^}]*} [1-9]");

      long start = System.nanoTime();
      gateway.close();
      gateway = null;
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

      ended.get(20, TimeUnit.SECONDS);
      a2aEnded.get(20, TimeUnit.SECONDS);
      assertThat(a2aLines).as("the A2A stream told to retry, then ended").contains("retry: 1000");
      assertThat(lines).contains("retry: 1000");
      assertThat(lines.indexOf("retry: 1000"))
          .as("after the history")
          .isGreaterThan(
              lines.indexOf(
                  lines.stream().filter(l -> l.startsWith("data:")).findFirst().orElseThrow()));
      assertThat(tookMs)
          .as("close within the drain bound plus the Streams and client shutdown")
          .isLessThan(Gateway.DRAIN_WITHIN.toMillis() + 30_000);
    } finally {
      if (gateway != null) {
        gateway.close();
      }
    }
  }

  /** Reads a stream's lines until the server ends it. */
  private static CompletableFuture<Void> readLines(InputStream body, List<String> lines) {
    return CompletableFuture.runAsync(
        () -> {
          try (BufferedReader r =
              new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
              lines.add(line);
            }
          } catch (Exception gone) {
            lines.add("<" + gone + ">");
          }
        });
  }
}

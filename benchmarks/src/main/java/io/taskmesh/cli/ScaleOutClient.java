package io.taskmesh.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The scale-out run's clients: each task is started on one api replica (the other when that one
 * refuses or is down) and followed by an SSE client on the other, which reconnects with {@code
 * Last-Event-ID} (switching replica) whenever its stream ends before the task does.
 */
final class ScaleOutClient {
  private static final Duration GIVE_UP = Duration.ofMinutes(10);

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<String> replicas;

  ScaleOutClient(List<String> replicas) {
    this.replicas = List.copyOf(replicas);
  }

  List<String> replicas() {
    return replicas;
  }

  /** One task of the run and what its client saw. */
  static final class TaskRun {
    private final int index;
    private final String text;
    private volatile String id;
    private volatile long submitNanos;
    private volatile long endNanos;
    private final AtomicInteger terminalUpdates = new AtomicInteger();
    private volatile String finalStatus;
    private final AtomicInteger reconnects = new AtomicInteger();

    TaskRun(int index, String text) {
      this.index = index;
      this.text = text;
    }

    int index() {
      return index;
    }

    String text() {
      return text;
    }

    String id() {
      return id;
    }

    long submitNanos() {
      return submitNanos;
    }

    long endNanos() {
      return endNanos;
    }

    int terminalUpdates() {
      return terminalUpdates.get();
    }

    String finalStatus() {
      return finalStatus;
    }

    int reconnects() {
      return reconnects.get();
    }
  }

  void run(TaskRun r) throws InterruptedException {
    long deadline = System.nanoTime() + GIVE_UP.toNanos();
    r.submitNanos = System.nanoTime();
    r.id = submit(r, deadline);
    if (r.id != null) {
      follow(r, deadline);
    }
  }

  private String submit(TaskRun r, long deadline) throws InterruptedException {
    String body = Json.write(Map.of("name", "shout", "arguments", Map.of("text", r.text())));
    for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
      String base = replicas.get((r.index() + attempt) % replicas.size());
      try {
        HttpResponse<String> resp =
            http.send(
                HttpRequest.newBuilder(URI.create(base + "/tools/call"))
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(60))
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200) {
          JsonNode result = Json.MAPPER.readTree(resp.body());
          return Json.MAPPER
              .readTree(result.at("/content/0/text").asText())
              .get("task_id")
              .asText();
        }
      } catch (IOException e) {
        // the replica is down or restarting: the next attempt goes to the other one
      }
      Thread.sleep(200);
    }
    return null;
  }

  private void follow(TaskRun r, long deadline) throws InterruptedException {
    String lastEventId = null;
    for (int attempt = 1; r.terminalUpdates.get() == 0 && System.nanoTime() < deadline; attempt++) {
      String base = replicas.get((r.index() + attempt) % replicas.size());
      boolean opened = false;
      HttpRequest.Builder req =
          HttpRequest.newBuilder(URI.create(base + "/stream/" + r.id()))
              .header("Accept", "text/event-stream")
              .timeout(Duration.ofSeconds(30))
              .GET();
      if (lastEventId != null) {
        req.header("Last-Event-ID", lastEventId);
      }
      try {
        HttpResponse<Stream<String>> resp =
            http.send(req.build(), HttpResponse.BodyHandlers.ofLines());
        try (Stream<String> lines = resp.body()) {
          if (resp.statusCode() == 200) {
            opened = true;
            lastEventId = read(r, lines.iterator(), lastEventId);
          }
        }
      } catch (IOException | UncheckedIOException e) {
        // cut off (the replica stopped): reconnect below with the last id seen
      }
      if (r.terminalUpdates.get() == 0) {
        if (opened) { // an open stream ended early; refusals before it (404 while the other
          // replica has not folded the task yet, 503 while its view rebalances) are not counted
          r.reconnects.incrementAndGet();
        }
        Thread.sleep(200);
      }
    }
  }

  /** Reads events until the stream ends; returns the last event id seen. */
  private static String read(TaskRun r, Iterator<String> lines, String lastEventId) {
    String id = null;
    String event = "message";
    StringBuilder data = new StringBuilder();
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (id != null) {
          lastEventId = id;
        }
        if ("update".equals(event) && data.length() > 0) {
          update(r, data.toString());
        }
        id = null;
        event = "message";
        data.setLength(0);
      } else if (line.startsWith("id:")) {
        id = line.substring(3).trim();
      } else if (line.startsWith("event:")) {
        event = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data.append(data.length() > 0 ? "\n" : "").append(line.substring(5).trim());
      }
    }
    return lastEventId;
  }

  private static void update(TaskRun r, String data) {
    String status;
    try {
      status = Json.MAPPER.readTree(data).path("status").asText();
    } catch (IOException e) {
      return;
    }
    if (TaskStatus.fromWire(status).isFinal()) {
      if (r.terminalUpdates.get() == 0) {
        r.endNanos = System.nanoTime();
        r.finalStatus = status;
      }
      r.terminalUpdates.incrementAndGet();
    }
  }

  /** The task as {@code base} answers it (retried while its view is rebalancing), or null. */
  JsonNode task(String base, String id) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> resp =
            http.send(
                HttpRequest.newBuilder(URI.create(base + "/tasks/" + id))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (resp.statusCode() == 200) {
          return Json.MAPPER.readTree(resp.body());
        }
        Thread.sleep(200);
      } catch (IOException e) {
        // retried until the deadline
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }
}

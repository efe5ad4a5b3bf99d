package io.taskmesh.topology;

import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.state.HostInfo;

/**
 * Asks the replica that owns a task key: {@code GET http://host:port/internal/tasks/{id}}, 200 the
 * {@link TaskState} JSON, 404 no such task. Anything else (503 while the owner rebalances, a
 * connection failure, a timeout) is a {@link ViewUnavailableException}: retry, never a 404.
 */
final class RemoteTaskQueries {
  static final String PATH = "/internal/tasks/";
  static final String LIST_PATH = "/internal/tasks";
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final String token;

  RemoteTaskQueries(String token) {
    this.token = token;
  }

  Optional<TaskState> get(HostInfo owner, String taskId) {
    URI uri =
        URI.create(
            "http://"
                + owner.host()
                + ":"
                + owner.port()
                + PATH
                + URLEncoder.encode(taskId, StandardCharsets.UTF_8).replace("+", "%20"));
    HttpResponse<byte[]> r =
        send(uri, Duration.ofSeconds(5), "owner " + owner + " of task " + taskId);
    return switch (r.statusCode()) {
      case 200 -> Optional.of(Json.read(r.body(), TaskState.class));
      case 404 -> Optional.empty();
      case 401, 403 ->
          throw new ViewUnavailableException(
              "owner "
                  + owner
                  + " refused the forwarded query of task "
                  + taskId
                  + ": every replica needs the same SVC_INTERNAL_TOKEN",
              null);
      default ->
          throw new ViewUnavailableException(
              "owner "
                  + owner
                  + " of task "
                  + taskId
                  + " answered "
                  + r.statusCode()
                  + ", retry shortly",
              null);
    };
  }

  /**
   * The owner's tasks in {@code replica}'s stores: {@code GET /internal/tasks?owner=} (no owner:
   * none sent).
   */
  List<TaskState> tasksOf(HostInfo replica, String owner) {
    String query =
        owner == null ? "" : "?owner=" + URLEncoder.encode(owner, StandardCharsets.UTF_8);
    URI uri = URI.create("http://" + replica.host() + ":" + replica.port() + LIST_PATH + query);
    HttpResponse<byte[]> r = send(uri, Duration.ofSeconds(10), "replica " + replica + " (listing)");
    if (r.statusCode() != 200) {
      throw new ViewUnavailableException(
          "replica "
              + replica
              + " answered "
              + r.statusCode()
              + " to a listing"
              + (r.statusCode() == 403 ? ": every replica needs the same SVC_INTERNAL_TOKEN" : "")
              + ", retry shortly",
          null);
    }
    return List.of(Json.read(r.body(), TaskState[].class));
  }

  /**
   * A GET with the internal token; an unreachable replica is a {@link ViewUnavailableException}.
   */
  private HttpResponse<byte[]> send(URI uri, Duration timeout, String whom) {
    try {
      HttpRequest.Builder req = HttpRequest.newBuilder(uri).timeout(timeout).GET();
      if (token != null) {
        req.header(TaskViewConfig.INTERNAL_TOKEN_HEADER, token);
      }
      return http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new ViewUnavailableException(whom + " unreachable: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ViewUnavailableException("interrupted while asking " + whom, e);
    }
  }
}

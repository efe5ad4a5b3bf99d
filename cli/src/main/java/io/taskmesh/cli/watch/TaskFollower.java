package io.taskmesh.cli.watch;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.cli.client.ClientException;
import io.taskmesh.cli.client.EventStreams;
import io.taskmesh.cli.client.GatewayClient;
import io.taskmesh.cli.client.SseEvent;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

/**
 * Follows one task on {@code GET /stream/{id}} into a {@link TaskView} until it ends or waits for
 * input. A dropped connection (or a stream closed before the end) is resumed with {@code
 * Last-Event-ID} = the last update seen, so no update is shown twice or lost; FLY events are not
 * stored and those sent while disconnected are gone.
 */
public final class TaskFollower {
  /** How long to keep trying to get the stream back before giving up. */
  static final Duration GIVE_UP_AFTER = Duration.ofSeconds(60);

  private static final long RETRY_PAUSE_MS = 500;

  private final GatewayClient gateway;

  public TaskFollower(GatewayClient gateway) {
    this.gateway = gateway;
  }

  public TaskProgress follow(String taskId, TaskView view) {
    return follow(taskId, view, true);
  }

  /**
   * Follows the task into {@code view} until it ends.
   *
   * @param stopWhenWaiting end at a paused or auth_required task too (else only at its end)
   */
  public TaskProgress follow(String taskId, TaskView view, boolean stopWhenWaiting) {
    TaskProgress progress = new TaskProgress(taskId);
    long lostSince = 0;
    while (!done(progress, stopWhenWaiting)) {
      String resumeAfter = progress.lastEventId();
      String lost;
      try {
        gateway.stream(
            taskId, resumeAfter, event -> onEvent(event, progress, view, stopWhenWaiting));
        lost = "the stream closed before the task ended";
      } catch (IOException dropped) {
        lost =
            "connection lost ("
                + (dropped.getMessage() == null
                    ? dropped.getClass().getSimpleName()
                    : dropped.getMessage())
                + ")";
      }
      if (done(progress, stopWhenWaiting)) {
        break;
      }
      long now = System.nanoTime();
      if (!Objects.equals(resumeAfter, progress.lastEventId())) {
        lostSince = now; // it moved on before dropping: the give-up clock starts again
      }
      lostSince = lostSince == 0 ? now : lostSince;
      if (Duration.ofNanos(now - lostSince).compareTo(GIVE_UP_AFTER) > 0) {
        throw new ClientException(
            ClientException.GATEWAY,
            "could not resume the stream of task "
                + taskId
                + " for "
                + GIVE_UP_AFTER.toSeconds()
                + " s: "
                + lost);
      }
      view.note(
          lost
              + "; resuming after event "
              + Objects.requireNonNullElse(progress.lastEventId(), "0")
              + "...");
      pause();
    }
    view.end(progress);
    return progress;
  }

  private static boolean done(TaskProgress progress, boolean stopWhenWaiting) {
    return progress.isOver() || (stopWhenWaiting && progress.isWaiting());
  }

  private static void onEvent(
      SseEvent event, TaskProgress progress, TaskView view, boolean stopWhenWaiting) {
    JsonNode data;
    try {
      data = Json.MAPPER.readTree(event.data());
    } catch (IOException e) {
      return; // not ours to show
    }
    if (event.event().equals("update")) {
      progress.apply(data);
      view.update(progress, data);
      if (done(progress, stopWhenWaiting)) {
        throw new EventStreams.StopReading();
      }
    } else {
      view.token(ProgressLines.token(data));
    }
  }

  /** Between reconnects: the gateway may be restarting, asking again at once would only spin. */
  private static void pause() {
    try {
      Thread.sleep(RETRY_PAUSE_MS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClientException(ClientException.GATEWAY, "interrupted");
    }
  }
}

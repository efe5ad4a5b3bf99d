package io.taskmesh.cli.watch;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a person watching a task knows, folded from its {@code update} events: the route's actors
 * each with its state (waiting, received, processing, completed), the overall percent, the status,
 * and the result or error once it ends. Pure: rendering lives in the views.
 */
public final class TaskProgress {
  /** An actor's place in the route and how far it got. */
  public record Actor(String name, String state) {}

  public static final String WAITING = "waiting";
  public static final String COMPLETED = "completed";

  private final String taskId;
  private final List<Actor> actors = new ArrayList<>();
  private String status = "pending";
  private double percent;
  private JsonNode result;
  private String error;
  private String message;
  private long lastSeq;

  public TaskProgress(String taskId) {
    this.taskId = taskId;
  }

  /**
   * Folds one {@code update} event's data; an update already seen (a resumed stream) changes
   * nothing.
   */
  public void apply(JsonNode update) {
    long seq = update.path("seq").asLong(0);
    if (seq != 0 && seq <= lastSeq) {
      return;
    }
    lastSeq = Math.max(lastSeq, seq);
    if (update.path("actors").isArray()) {
      learnRoute(update.get("actors"));
    }
    if (update.hasNonNull("status")) {
      status = update.get("status").asText();
    }
    if (update.hasNonNull("progress_percent")) {
      percent = update.get("progress_percent").asDouble();
    }
    if (update.hasNonNull("message")) {
      message = update.get("message").asText();
    }
    String actorState = update.path("actor_state").asText(null);
    if (actorState != null) {
      int idx = update.path("current_actor_idx").asInt(-1);
      String name = update.path("actor").asText(null);
      if (idx < 0 || idx >= actors.size()) {
        idx = indexOf(name);
      }
      if (idx >= 0) {
        // a route's earlier actors are done once a later one reports
        for (int i = 0; i < idx; i++) {
          actors.set(i, new Actor(actors.get(i).name(), COMPLETED));
        }
        actors.set(idx, new Actor(actors.get(idx).name(), actorState));
      }
    }
    if ("succeeded".equals(status)) {
      percent = 100;
      actors.replaceAll(a -> new Actor(a.name(), COMPLETED));
    }
    if (update.has("result")) {
      result = update.get("result");
    }
    if (update.hasNonNull("error")) {
      error = update.get("error").asText();
    }
  }

  private void learnRoute(JsonNode names) {
    if (names.size() <= actors.size()) {
      return;
    }
    List<Actor> known = List.copyOf(actors);
    actors.clear();
    for (int i = 0; i < names.size(); i++) {
      actors.add(i < known.size() ? known.get(i) : new Actor(names.get(i).asText(), WAITING));
    }
  }

  private int indexOf(String name) {
    for (int i = 0; i < actors.size(); i++) {
      if (actors.get(i).name().equals(name)) {
        return i;
      }
    }
    if (name == null) {
      return -1;
    }
    actors.add(new Actor(name, WAITING));
    return actors.size() - 1;
  }

  /** Succeeded, failed or canceled: no update follows. */
  public boolean isOver() {
    return "succeeded".equals(status) || "failed".equals(status) || "canceled".equals(status);
  }

  /** Waiting for input or credentials: the stream ends here until someone resumes it. */
  public boolean isWaiting() {
    return "paused".equals(status) || "auth_required".equals(status);
  }

  public boolean succeeded() {
    return "succeeded".equals(status);
  }

  /** The SSE id to resume after, or null before any update. */
  public String lastEventId() {
    return lastSeq == 0 ? null : Long.toString(lastSeq);
  }

  public String taskId() {
    return taskId;
  }

  public List<Actor> actors() {
    return List.copyOf(actors);
  }

  public String status() {
    return status;
  }

  public double percent() {
    return percent;
  }

  public JsonNode result() {
    return result;
  }

  public String error() {
    return error;
  }

  public String message() {
    return message;
  }
}

package io.taskmesh.gateway.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Answers to a paused task's input requests that came in several {@code tasks/update} calls (the
 * tasks extension lets a client answer one request at a time): held per task and pause until the
 * last request is answered, then handed over whole. They live in this gateway's memory: a client
 * that spreads its answers over replicas, or a gateway restart between them, makes the task ask
 * again for what it lost (docs/api/protocols.md). At most {@link #MAX_TASKS} tasks are held; the
 * oldest goes first.
 */
final class PartialAnswers {
  static final int MAX_TASKS = 10_000;

  private record Held(long pauseSeq, ObjectNode answers) {}

  private final Map<String, Held> held =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Held> eldest) {
          return size() > MAX_TASKS;
        }
      };

  /** Adds {@code responses} to what this pause of {@code s} has; the answers so far. */
  synchronized JsonNode add(TaskState s, JsonNode responses) {
    Held h = held.get(s.id());
    if (h == null || h.pauseSeq() != s.seq()) {
      h = new Held(s.seq(), Json.MAPPER.createObjectNode());
      held.put(s.id(), h);
    }
    h.answers().setAll((ObjectNode) responses);
    return h.answers().deepCopy();
  }

  /** The answers this pause of {@code s} has so far (none: an empty object). */
  synchronized JsonNode of(TaskState s) {
    Held h = held.get(s.id());
    return h == null || h.pauseSeq() != s.seq()
        ? Json.MAPPER.createObjectNode()
        : h.answers().deepCopy();
  }

  synchronized void forget(String taskId) {
    held.remove(taskId);
  }
}

package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Ephemeral FLY events to the in-process subscribers of a task: at most once, never stored,
 * dropped when nobody listens. (Cross-process delivery over Postgres NOTIFY is not built yet.)
 */
public final class FlyBus {
  private final Map<String, List<Consumer<JsonNode>>> subscribers = new ConcurrentHashMap<>();

  public void publish(String taskId, JsonNode event) {
    List<Consumer<JsonNode>> list = subscribers.get(taskId);
    if (list != null) {
      list.forEach(l -> l.accept(event));
    }
  }

  public AutoCloseable subscribe(String taskId, Consumer<JsonNode> listener) {
    subscribers.computeIfAbsent(taskId, k -> new CopyOnWriteArrayList<>()).add(listener);
    return () -> subscribers.computeIfPresent(taskId, (k, list) -> {
      list.remove(listener);
      return list.isEmpty() ? null : list;
    });
  }

  /** SSE event type of a FLY payload: its {@code type} field, else a marker key, else partial. */
  static String eventType(JsonNode fly) {
    JsonNode type = fly.get("type");
    if (type != null && type.isTextual() && !type.asText().isBlank()) {
      return type.asText();
    }
    for (String key : List.of("artifact_update", "status_update", "message")) {
      if (fly.has(key)) {
        return key;
      }
    }
    return "partial";
  }
}

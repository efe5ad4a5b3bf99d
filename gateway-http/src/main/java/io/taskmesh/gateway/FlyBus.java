package io.taskmesh.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ephemeral FLY events to the subscribers of a task: at most once, never stored, dropped when
 * nobody listens. With a database every replica's subscribers get every event (Postgres NOTIFY);
 * without one, or for payloads over 8000 bytes, or while the database is down, delivery is
 * in-process only (spec, "FLY delivery").
 */
public final class FlyBus implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlyBus.class);
  private final Map<String, List<Consumer<JsonNode>>> subscribers = new ConcurrentHashMap<>();
  private final PgFlyChannel channel;

  /** In-process only. */
  public FlyBus() {
    this.channel = null;
  }

  /** Across processes through the database at {@code databaseUrl} (JDBC URL or postgres DSN). */
  public FlyBus(String databaseUrl) {
    this.channel = new PgFlyChannel(DatabaseUrl.toJdbc(databaseUrl), this::deliverJson);
  }

  public void publish(String taskId, JsonNode event) {
    if (channel != null && channel.publish(taskId, Json.write(event))) {
      return; // the listener of every process, this one included, delivers it
    }
    deliver(taskId, event);
  }

  /** True when events published here reach other processes. */
  public boolean crossProcess() {
    return channel != null && channel.listening();
  }

  private void deliverJson(String taskId, String json) {
    if (!subscribers.containsKey(taskId)) {
      return;
    }
    try {
      deliver(taskId, Json.MAPPER.readTree(json));
    } catch (IOException e) {
      LOG.warn("dropping a FLY notification that is not JSON: {}", e.getMessage());
    }
  }

  private void deliver(String taskId, JsonNode event) {
    List<Consumer<JsonNode>> list = subscribers.get(taskId);
    if (list != null) {
      list.forEach(l -> l.accept(event));
    }
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.close();
    }
  }

  public AutoCloseable subscribe(String taskId, Consumer<JsonNode> listener) {
    subscribers.computeIfAbsent(taskId, k -> new CopyOnWriteArrayList<>()).add(listener);
    return () ->
        subscribers.computeIfPresent(
            taskId,
            (k, list) -> {
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

package io.taskmesh.gateway.fly;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ephemeral FLY events to the subscribers of a task: at most once, never stored. An event nobody
 * listens to is held for a short grace time for the task's first subscriber ({@link HeldFly}: a
 * client opens a task's stream only after the call that started it returns), then dropped. With a
 * database every replica's subscribers get every event (Postgres NOTIFY); without one, or for
 * payloads over 8000 bytes, or while the database is down, delivery is in-process only (spec, "FLY
 * delivery").
 */
public final class FlyBus implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FlyBus.class);
  private final Map<String, List<Consumer<JsonNode>>> subscribers = new ConcurrentHashMap<>();
  private final PgFlyChannel channel;
  private final HeldFly held = new HeldFly();
  private final Echoes echoes = new Echoes();

  /** In-process only. */
  public FlyBus() {
    this.channel = null;
  }

  /** Across processes through the database at {@code databaseUrl} (JDBC URL or postgres DSN). */
  public FlyBus(String databaseUrl) {
    this(databaseUrl, true);
  }

  /**
   * As above; {@code receive} false for a replica that only publishes (mesh-only: it serves no
   * stream with FLY, so it does not listen, and an event it could not send reaches nobody).
   */
  public FlyBus(String databaseUrl, boolean receive) {
    this(databaseUrl, receive, null);
  }

  /**
   * As above, on the FLY channel of {@code namespace} ({@code fly} for {@code default} or null,
   * {@code fly.<ns>} otherwise): deployments that share a database keep their FLY apart.
   */
  public FlyBus(String databaseUrl, boolean receive, String namespace) {
    this.channel =
        new PgFlyChannel(
            DatabaseUrl.toJdbc(databaseUrl),
            this::deliverJson,
            receive,
            PgFlyChannel.channelFor(namespace));
  }

  public void publish(String taskId, JsonNode event) {
    String json = Json.write(event);
    // this process's subscribers get it now, not after a round trip through the database: a token
    // must reach a caller before the task's result can (the result takes the longer way, through
    // the event log); the NOTIFY this process hears back is then skipped (expected before it is
    // sent, so that it cannot come back first)
    boolean echoed = channel != null && channel.hearsItself();
    if (echoed) {
      echoes.expect(taskId, json);
    }
    if (channel != null && !channel.publish(taskId, json) && echoed) {
      echoes.arrived(taskId, json); // not sent: no echo will come
    }
    deliver(taskId, event);
  }

  /** True when events published here reach other processes. */
  public boolean crossProcess() {
    return channel != null && channel.reachesOthers();
  }

  private void deliverJson(String taskId, String json) {
    if (echoes.arrived(taskId, json)) {
      return; // published here and delivered here already
    }
    try {
      deliver(taskId, Json.MAPPER.readTree(json));
    } catch (IOException e) {
      LOG.warn("dropping a FLY notification that is not JSON: {}", e.getMessage());
    }
  }

  private void deliver(String taskId, JsonNode event) {
    List<Consumer<JsonNode>> list = subscribers.get(taskId);
    if (list == null) {
      // checked again under the lock subscribe() takes the hold under, so no event is held
      // after the first subscriber took the hold
      synchronized (held) {
        list = subscribers.get(taskId);
        if (list == null) {
          held.hold(taskId, event);
          return;
        }
      }
    }
    list.forEach(l -> l.accept(event));
  }

  /**
   * The events this process published and delivered itself, until their NOTIFY comes back. At most
   * once allows the rare mistake this makes (another replica publishing the very same event for the
   * same task while one of ours is on its way: one of the two is skipped); an echo that never comes
   * (the database went away) is forgotten once too many are waiting.
   */
  private static final class Echoes {
    private static final int MAX_WAITING = 10_000;
    private final Map<String, Integer> waiting = new ConcurrentHashMap<>();

    void expect(String taskId, String json) {
      if (waiting.size() > MAX_WAITING) {
        waiting.clear();
      }
      waiting.merge(taskId + "\n" + json, 1, Integer::sum);
    }

    boolean arrived(String taskId, String json) {
      boolean[] was = new boolean[1];
      waiting.computeIfPresent(
          taskId + "\n" + json,
          (k, n) -> {
            was[0] = true;
            return n > 1 ? n - 1 : null;
          });
      return was[0];
    }
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.close();
    }
  }

  public AutoCloseable subscribe(String taskId, Consumer<JsonNode> listener) {
    Consumer<JsonNode> added;
    HeldFirst first = null;
    synchronized (held) {
      List<JsonNode> early = held.take(taskId);
      added = listener;
      if (!early.isEmpty()) {
        first = new HeldFirst(listener, early);
        added = first;
      }
      subscribers.computeIfAbsent(taskId, k -> new CopyOnWriteArrayList<>()).add(added);
    }
    if (first != null) {
      first.open();
    }
    Consumer<JsonNode> subscribed = added;
    return () ->
        subscribers.computeIfPresent(
            taskId,
            (k, list) -> {
              list.remove(subscribed);
              return list.isEmpty() ? null : list;
            });
  }

  /**
   * The first subscriber of a task with held events: gets them before any live event that arrives
   * while they are being handed over.
   */
  private static final class HeldFirst implements Consumer<JsonNode> {
    private final Consumer<JsonNode> listener;
    private List<JsonNode> pending;

    HeldFirst(Consumer<JsonNode> listener, List<JsonNode> held) {
      this.listener = listener;
      this.pending = new ArrayList<>(held);
    }

    @Override
    public synchronized void accept(JsonNode event) {
      if (pending != null) {
        pending.add(event);
      } else {
        listener.accept(event);
      }
    }

    synchronized void open() {
      pending.forEach(listener);
      pending = null;
    }
  }

  /** SSE event type of a FLY payload: its {@code type} field, else a marker key, else partial. */
  public static String eventType(JsonNode fly) {
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

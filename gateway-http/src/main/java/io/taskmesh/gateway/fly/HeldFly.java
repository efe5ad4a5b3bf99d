package io.taskmesh.gateway.fly;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * FLY events of tasks nobody streams yet, kept for a short grace time and handed to the first
 * subscriber. A client learns a task's id only when the call that started it returns, and opens the
 * task's stream after that; a fast actor's first tokens are published in between and, with no
 * subscriber, would be lost. Still at most once: an event goes either to the subscribers of the
 * moment or into this hold, and the hold is emptied into exactly one subscriber. Not a replay of
 * history: only events that reached nobody, and only for {@link #GRACE_MS} after the first of them.
 * Bounded per task and in all, so tasks nobody ever streams cost a fixed amount of memory.
 */
final class HeldFly {
  /** How long events wait for a first subscriber, counted from the first held event of a task. */
  static final long GRACE_MS = 5_000;

  /** Per task: the spec's subscriber buffer (100 events). */
  static final int MAX_PER_TASK = 100;

  /** Tasks held at once; the oldest hold is dropped past it. */
  static final int MAX_TASKS = 1_000;

  private final LongSupplier clockMs;
  private final Map<String, Hold> holds = new LinkedHashMap<>();

  HeldFly() {
    this(System::currentTimeMillis);
  }

  HeldFly(LongSupplier clockMs) {
    this.clockMs = clockMs;
  }

  /** Keeps an event that reached no subscriber (dropped when its task's grace time is over). */
  synchronized void hold(String taskId, JsonNode event) {
    long now = clockMs.getAsLong();
    dropExpired(now);
    Hold hold = holds.get(taskId);
    if (hold == null) {
      if (holds.size() >= MAX_TASKS) {
        Iterator<Map.Entry<String, Hold>> oldest = holds.entrySet().iterator();
        oldest.next();
        oldest.remove();
      }
      hold = new Hold(now);
      holds.put(taskId, hold);
    }
    if (hold.events.size() < MAX_PER_TASK) {
      hold.events.add(event);
    }
  }

  /** The held events of a task, oldest first, removed from the hold; empty when none are held. */
  synchronized List<JsonNode> take(String taskId) {
    long now = clockMs.getAsLong();
    dropExpired(now);
    Hold hold = holds.remove(taskId);
    return hold == null ? List.of() : hold.events;
  }

  synchronized int heldTasks() {
    return holds.size();
  }

  /** Holds are kept in the order they began, so the expired ones are at the front. */
  private void dropExpired(long now) {
    Iterator<Hold> it = holds.values().iterator();
    while (it.hasNext() && now - it.next().since > GRACE_MS) {
      it.remove();
    }
  }

  private static final class Hold {
    final long since;
    final List<JsonNode> events = new ArrayList<>();

    Hold(long since) {
      this.since = since;
    }
  }
}

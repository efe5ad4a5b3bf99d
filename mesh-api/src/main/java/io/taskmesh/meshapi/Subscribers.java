package io.taskmesh.meshapi;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/** In-process subscribers per envelope id; the fan-out consumer hands events to them. */
public final class Subscribers {
  private final Map<String, Set<Consumer<MeshEvent>>> byId = new ConcurrentHashMap<>();

  public void add(String id, Consumer<MeshEvent> s) {
    byId.computeIfAbsent(id, k -> ConcurrentHashMap.newKeySet()).add(s);
  }

  public void remove(String id, Consumer<MeshEvent> s) {
    byId.computeIfPresent(id, (k, set) -> {
      set.remove(s);
      return set.isEmpty() ? null : set;
    });
  }

  /** Never blocks: a subscriber queues the event (bounded) and writes it on its own. */
  public void deliver(MeshEvent e) {
    Set<Consumer<MeshEvent>> set = byId.get(e.id());
    if (set != null) {
      for (Consumer<MeshEvent> s : set) {
        s.accept(e);
      }
    }
  }

  public int count() {
    return byId.values().stream().mapToInt(Set::size).sum();
  }
}

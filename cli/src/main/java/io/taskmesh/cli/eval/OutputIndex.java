package io.taskmesh.cli.eval;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.FanOutIds;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pairs the records of the log with the inputs they answer: what the live actor produced for each
 * envelope it received. Only the topics the actor's sidecar writes to count: every actor queue,
 * x-sink and x-pause. x-sump is left out on purpose: x-sink forwards every envelope it receives to
 * x-sump unchanged (same id, same {@code status.actor}), so reading it as well counted each x-sink
 * output twice (a fan-out frame twice, or frame 0 as {@code "to": "x-sump"}). Each frame of an
 * input is kept once, whatever else repeats it.
 */
final class OutputIndex {
  /** The most fan-out children looked for per envelope when telling a child's frame index. */
  private static final int MAX_CHILDREN = 4096;

  private final String actor;
  private final String prefix;
  private final String sump;
  private final Spill spill;
  private final Map<String, ActorLog.Input> byId = new HashMap<>();
  private final Map<String, List<ActorLog.LiveOutput>> out = new HashMap<>();

  /** One string per destination topic, not one per record: the index is held for every input. */
  private final Map<String, String> destinations = new HashMap<>();

  private long since = Long.MAX_VALUE;

  OutputIndex(String namespace, String actor, List<ActorLog.Input> inputs, Spill spill) {
    this.actor = actor;
    this.prefix = Topics.actorQueue(namespace, "");
    this.sump = Topics.actorQueue(namespace, Topics.SUMP);
    this.spill = spill;
    for (ActorLog.Input i : inputs) {
      byId.putIfAbsent(i.id(), i);
      since = Math.min(since, i.timestamp());
    }
  }

  /** The time of the earliest input: no output of the actor for them can be older. */
  long since() {
    return since;
  }

  /**
   * Whether the actor's sidecar can have written to {@code topic}: an actor queue of the namespace
   * (x-sink and x-pause among them), but not x-sump (only x-sink writes there), a dead-letter topic
   * or x-pause's resume topic (their names hold a dot).
   */
  boolean reads(String topic) {
    return topic.startsWith(prefix) && !topic.contains(".") && !topic.equals(sump);
  }

  /**
   * One record of a topic {@link #reads} accepts: kept when the actor stamped it ({@code
   * status.actor}) and its id is an input's (frame 0, or the failure the sidecar sent to x-sink) or
   * names an input as its parent with the sidecar's fan-out id (frames 1 and up).
   */
  void offer(String topic, long timestamp, byte[] value) {
    if (!reads(topic)) {
      return;
    }
    JsonNode v = tree(value);
    if (v == null || !actor.equals(v.path("status").path("actor").asText(null))) {
      return;
    }
    String id = v.path("id").asText("");
    String parent = v.path("parent_id").asText(null);
    String to = destinations.computeIfAbsent(topic, t -> t.substring(prefix.length()));
    boolean failed = "failed".equals(v.path("status").path("phase").asText(""));
    ActorLog.Input in = byId.get(id);
    if (in != null && timestamp >= in.timestamp()) {
      add(in, 0, to, timestamp, failed, value);
      return;
    }
    ActorLog.Input p = parent == null ? null : byId.get(parent);
    if (p != null && !id.equals(parent)) {
      int index = childIndex(p, id);
      if (index > 0) {
        add(p, index, to, timestamp, failed, value);
      }
    }
  }

  /** Keeps frame {@code index} of {@code in} unless it has it already; keyed by the input's id. */
  private void add(
      ActorLog.Input in, int index, String to, long timestamp, boolean failed, byte[] value) {
    List<ActorLog.LiveOutput> frames = out.computeIfAbsent(in.id(), k -> new ArrayList<>(1));
    for (ActorLog.LiveOutput f : frames) {
      if (f.index() == index) {
        return;
      }
    }
    frames.add(new ActorLog.LiveOutput(index, to, timestamp, failed, spill.append(value)));
  }

  /** The outputs found per input id, in frame order. */
  Map<String, List<ActorLog.LiveOutput>> outputs() {
    out.values().forEach(l -> l.sort((a, b) -> Integer.compare(a.index(), b.index())));
    return out;
  }

  private int childIndex(ActorLog.Input parent, String childId) {
    for (int i = 1; i <= MAX_CHILDREN; i++) {
      if (FanOutIds.childId(parent.id(), parent.hop(), actor, i).equals(childId)) {
        return i;
      }
    }
    return -1;
  }

  private static JsonNode tree(byte[] value) {
    try {
      return value == null ? null : Json.MAPPER.readTree(value);
    } catch (IOException e) {
      return null;
    }
  }
}

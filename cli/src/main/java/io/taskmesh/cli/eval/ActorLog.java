package io.taskmesh.cli.eval;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.FanOutIds;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads an actor's retained log with a plain consumer: partitions assigned by hand, no group id,
 * nothing committed, so the live consumer group and its offsets are never touched. First the
 * envelopes the actor received (its topic), then what the actor produced for them (every actor
 * queue of the namespace, x-sink and x-pause), each body spilled to disk.
 */
final class ActorLog implements AutoCloseable {
  /** Where replay starts on each partition of the actor's topic. */
  sealed interface Start {}

  /** The earliest retained record. */
  record Earliest() implements Start {}

  /** The first record at or after {@code epochMillis}. */
  record Since(long epochMillis) implements Start {}

  /** These offsets: {@code all} on every partition, or per partition. */
  record FromOffsets(Long all, Map<Integer, Long> perPartition) implements Start {}

  /** One envelope the actor received. */
  record Input(String id, int hop, int partition, long offset, long timestamp, Spill.Slot body) {}

  /** One record the actor produced for an input: frame {@code index}, to topic {@code to}. */
  record LiveOutput(int index, String to, long timestamp, boolean failed, Spill.Slot body) {}

  private static final Duration API_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration QUIET_LIMIT = Duration.ofSeconds(60);

  /** The most fan-out children looked for per envelope when telling a child's frame index. */
  private static final int MAX_CHILDREN = 4096;

  private final KafkaConsumer<String, byte[]> consumer;
  private final String namespace;
  private final String actor;

  ActorLog(String bootstrap, String namespace, String actor) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "taskmesh-replay-eval");
    p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) API_TIMEOUT.toMillis());
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    this.namespace = namespace;
    this.actor = actor;
  }

  String inputTopic() {
    return Topics.actorQueue(namespace, actor);
  }

  /**
   * The envelopes on the actor's topic from {@code start} up to the end offsets of this moment, at
   * most {@code limit}, those {@code keep} accepts; bodies go to {@code spill}.
   *
   * @throws EvalFailure when the topic does not exist
   */
  List<Input> readInputs(Start start, long limit, Predicate<Envelope> keep, Spill spill) {
    String topic = inputTopic();
    List<PartitionInfo> infos = consumer.partitionsFor(topic, API_TIMEOUT);
    if (infos == null || infos.isEmpty()) {
      throw new EvalFailure(
          2,
          "there is no topic "
              + topic
              + " on this cluster: check the actor's name and the namespace (SVC_NAMESPACE)");
    }
    List<TopicPartition> tps = new ArrayList<>();
    infos.forEach(i -> tps.add(new TopicPartition(topic, i.partition())));
    Map<TopicPartition, Long> ends = consumer.endOffsets(tps, API_TIMEOUT);
    Map<TopicPartition, Long> begins = consumer.beginningOffsets(tps, API_TIMEOUT);
    Map<TopicPartition, Long> from = startOffsets(start, tps, begins, ends);
    List<Input> out = new ArrayList<>();
    scan(
        from,
        ends,
        r -> {
          if (out.size() >= limit) {
            return false;
          }
          Envelope e = envelope(r.value());
          if (e != null && actor.equals(e.route().curr()) && keep.test(e)) {
            out.add(
                new Input(
                    e.id(),
                    e.route().prev().size(),
                    r.partition(),
                    r.offset(),
                    r.timestamp(),
                    spill.append(r.value())));
          }
          return out.size() < limit;
        });
    return out;
  }

  private Map<TopicPartition, Long> startOffsets(
      Start start,
      List<TopicPartition> tps,
      Map<TopicPartition, Long> begins,
      Map<TopicPartition, Long> ends) {
    Map<TopicPartition, Long> from = new HashMap<>();
    if (start instanceof Since s) {
      Map<TopicPartition, Long> query = new HashMap<>();
      tps.forEach(tp -> query.put(tp, s.epochMillis()));
      Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, API_TIMEOUT);
      for (TopicPartition tp : tps) {
        OffsetAndTimestamp o = found.get(tp);
        from.put(tp, o == null ? ends.get(tp) : o.offset());
      }
    } else if (start instanceof FromOffsets f) {
      for (TopicPartition tp : tps) {
        Long wanted = f.all() != null ? f.all() : f.perPartition().get(tp.partition());
        long o = wanted == null ? ends.get(tp) : wanted;
        from.put(tp, Math.max(begins.get(tp), Math.min(ends.get(tp), o)));
      }
    } else {
      from.putAll(begins);
    }
    return from;
  }

  /**
   * Indexes what the actor produced for {@code inputs}: records since the earliest input's time on
   * every actor queue of the namespace (x-sink and x-pause among them), whose envelope the actor
   * stamped ({@code status.actor}) and whose id is an input's (frame 0, or the failure the sidecar
   * sent to x-sink) or names an input as its parent with the sidecar's fan-out id (frames 1 and
   * up).
   */
  Map<String, List<LiveOutput>> readOutputs(List<Input> inputs, Spill spill) {
    Map<String, Input> byId = new HashMap<>();
    long since = Long.MAX_VALUE;
    for (Input i : inputs) {
      byId.putIfAbsent(i.id(), i);
      since = Math.min(since, i.timestamp());
    }
    Map<String, List<LiveOutput>> out = new HashMap<>();
    if (inputs.isEmpty()) {
      return out;
    }
    String prefix = Topics.actorQueue(namespace, "");
    List<TopicPartition> tps = new ArrayList<>();
    consumer
        .listTopics(API_TIMEOUT)
        .forEach(
            (name, parts) -> {
              if (name.startsWith(prefix) && !name.contains(".")) {
                parts.forEach(pi -> tps.add(new TopicPartition(name, pi.partition())));
              }
            });
    if (tps.isEmpty()) {
      return out;
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(tps, API_TIMEOUT);
    Map<TopicPartition, Long> query = new HashMap<>();
    for (TopicPartition tp : tps) {
      query.put(tp, since);
    }
    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, API_TIMEOUT);
    Map<TopicPartition, Long> from = new HashMap<>();
    for (TopicPartition tp : tps) {
      OffsetAndTimestamp o = found.get(tp);
      from.put(tp, o == null ? ends.get(tp) : o.offset());
    }
    Set<String> seenFrameZero = new HashSet<>();
    scan(
        from,
        ends,
        r -> {
          JsonNode v = tree(r.value());
          if (v == null || !actor.equals(v.path("status").path("actor").asText(null))) {
            return true;
          }
          String id = v.path("id").asText("");
          String parent = v.path("parent_id").asText(null);
          String to = r.topic().substring(prefix.length());
          boolean failed = "failed".equals(v.path("status").path("phase").asText(""));
          Input in = byId.get(id);
          if (in != null && r.timestamp() >= in.timestamp() && seenFrameZero.add(id)) {
            out.computeIfAbsent(id, k -> new ArrayList<>())
                .add(new LiveOutput(0, to, r.timestamp(), failed, spill.append(r.value())));
            return true;
          }
          Input p = parent == null ? null : byId.get(parent);
          if (p != null && !id.equals(parent)) {
            int index = childIndex(p, id);
            if (index > 0) {
              out.computeIfAbsent(parent, k -> new ArrayList<>())
                  .add(new LiveOutput(index, to, r.timestamp(), failed, spill.append(r.value())));
            }
          }
          return true;
        });
    out.values().forEach(l -> l.sort((a, b) -> Integer.compare(a.index(), b.index())));
    return out;
  }

  private int childIndex(Input parent, String childId) {
    for (int i = 1; i <= MAX_CHILDREN; i++) {
      if (FanOutIds.childId(parent.id(), parent.hop(), actor, i).equals(childId)) {
        return i;
      }
    }
    return -1;
  }

  /** Reads every partition from {@code from} to {@code ends}; {@code each} false stops early. */
  private void scan(
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> ends,
      Predicate<ConsumerRecord<String, byte[]>> each) {
    Set<TopicPartition> open = new HashSet<>();
    for (Map.Entry<TopicPartition, Long> e : from.entrySet()) {
      if (e.getValue() < ends.get(e.getKey())) {
        open.add(e.getKey());
      }
    }
    consumer.assign(open);
    open.forEach(tp -> consumer.seek(tp, from.get(tp)));
    long quietSince = System.nanoTime();
    while (!open.isEmpty()) {
      var records = consumer.poll(Duration.ofMillis(500));
      if (!records.isEmpty()) {
        quietSince = System.nanoTime();
      } else if (System.nanoTime() - quietSince > QUIET_LIMIT.toNanos()) {
        throw new EvalFailure(
            3, "the log stopped answering for " + QUIET_LIMIT.toSeconds() + " s while reading");
      }
      for (ConsumerRecord<String, byte[]> r : records) {
        TopicPartition tp = new TopicPartition(r.topic(), r.partition());
        if (open.contains(tp) && r.offset() < ends.get(tp) && !each.test(r)) {
          consumer.assign(List.of());
          return;
        }
      }
      open.removeIf(tp -> consumer.position(tp) >= ends.get(tp));
      consumer.assign(open);
    }
    consumer.assign(List.of());
  }

  private static Envelope envelope(byte[] value) {
    try {
      return value == null ? null : Json.MAPPER.readValue(value, Envelope.class);
    } catch (IOException | RuntimeException e) {
      return null; // not an envelope: the sidecar would have sent it to x-sink as invalid
    }
  }

  private static JsonNode tree(byte[] value) {
    try {
      return value == null ? null : Json.MAPPER.readTree(value);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public void close() {
    consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
  }
}

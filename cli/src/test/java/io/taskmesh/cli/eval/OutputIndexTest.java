package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.sidecar.FanOutIds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputIndexTest {
  @TempDir Path dir;

  private static byte[] record(String id, String parent, String actor, String phase) {
    String p = parent == null ? "" : ",\"parent_id\":\"" + parent + "\"";
    return ("{\"id\":\""
            + id
            + "\""
            + p
            + ",\"status\":{\"actor\":\""
            + actor
            + "\",\"phase\":\""
            + phase
            + "\"},\"payload\":{}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static ActorLog.Input input(String id, Spill spill) {
    return new ActorLog.Input(id, 2, 0, 0, 1000, spill.append(new byte[] {1}));
  }

  @Test
  void anOutputToXSinkIsCountedOnceThoughXSinkForwardsItToXSump() {
    try (Spill spill = new Spill(dir.resolve("s"))) {
      OutputIndex index = new OutputIndex("default", "count", List.of(input("e1", spill)), spill);
      // x-sump's copy is read before x-sink's: partitions come in any order
      index.offer("svc-default-x-sump", 1200, record("e1", null, "count", "done"));
      index.offer("svc-default-x-sink", 1100, record("e1", null, "count", "done"));

      Map<String, List<ActorLog.LiveOutput>> out = index.outputs();
      assertThat(out.get("e1")).hasSize(1);
      assertThat(out.get("e1").get(0).to()).isEqualTo("x-sink");
    }
  }

  @Test
  void fanOutFramesToXSinkAreEachCountedOnce() {
    try (Spill spill = new Spill(dir.resolve("s"))) {
      OutputIndex index = new OutputIndex("ns1", "split", List.of(input("e1", spill)), spill);
      String child1 = FanOutIds.childId("e1", 2, "split", 1);
      index.offer("svc-ns1-x-sink", 1100, record("e1", null, "split", "done"));
      index.offer("svc-ns1-x-sink", 1101, record(child1, "e1", "split", "done"));
      index.offer("svc-ns1-x-sump", 1200, record("e1", null, "split", "done"));
      index.offer("svc-ns1-x-sump", 1201, record(child1, "e1", "split", "done"));
      // the same frame again (a retried write read_committed still shows): once
      index.offer("svc-ns1-x-sink", 1102, record(child1, "e1", "split", "done"));

      List<ActorLog.LiveOutput> out = index.outputs().get("e1");
      assertThat(out).extracting(ActorLog.LiveOutput::index).containsExactly(0, 1);
      assertThat(out).extracting(ActorLog.LiveOutput::to).containsOnly("x-sink");
    }
  }

  @Test
  void onlyTheTopicsTheActorsSidecarWritesToAreRead() {
    try (Spill spill = new Spill(dir.resolve("s"))) {
      OutputIndex index = new OutputIndex("default", "count", List.of(), spill);
      assertThat(index.reads("svc-default-x-sink")).isTrue();
      assertThat(index.reads("svc-default-x-pause")).isTrue();
      assertThat(index.reads("svc-default-reverse")).isTrue();
      assertThat(index.reads("svc-default-x-sump")).isFalse();
      assertThat(index.reads("svc-default-x-pause.resume")).isFalse();
      assertThat(index.reads("svc-default-count.dlq")).isFalse();
      assertThat(index.reads("svc.task-events")).isFalse();
    }
  }

  @Test
  void recordsOfOtherActorsOrOlderThanTheInputAreNotItsOutput() {
    try (Spill spill = new Spill(dir.resolve("s"))) {
      OutputIndex index = new OutputIndex("default", "count", List.of(input("e1", spill)), spill);
      index.offer("svc-default-x-sink", 1100, record("e1", null, "reverse", "done"));
      index.offer("svc-default-x-sink", 900, record("e1", null, "count", "done"));
      assertThat(index.outputs()).isEmpty();
    }
  }
}

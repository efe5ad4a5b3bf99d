package io.taskmesh.cli.eval;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.devkit.ChildJvm;
import io.taskmesh.schemas.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "bounded memory for 100,000 envelopes": 100,000 envelopes of 1 KiB go through the
 * path that holds them (spilled to disk, indexed, each live output paired with its input, x-sink's
 * copy on x-sump offered too, then read back one at a time and compared, latencies summed up) in a
 * child JVM whose heap is 48 MB, a third of the bodies' size. It completes: what stays in memory
 * per envelope is the index, not the bodies.
 */
class SpillPairingMemoryTest {
  static final int ENVELOPES = 100_000;

  @TempDir Path dir;

  @Test
  void aHundredThousandEnvelopesOfOneKibPairInA48MbHeap() throws Exception {
    Path log = dir.resolve("child.log");
    try (ChildJvm child =
        ChildJvm.start(
            Pairing.class.getName(),
            List.of("-Xmx48m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
            List.of(Integer.toString(ENVELOPES), dir.toString()),
            Map.of(),
            log)) {
      String line =
          child.awaitLine(
              l -> l.startsWith("paired ") || l.contains("Error"), 10, TimeUnit.MINUTES);
      assertThat(line).as(Files.readString(log)).isEqualTo("paired 100000 equal 100000");
    }
  }

  /** The child: the spill and pairing path of one replay, without Kafka and the candidate. */
  static final class Pairing {
    private Pairing() {}

    public static void main(String[] args) throws Exception {
      int n = Integer.parseInt(args[0]);
      Path scratch = Files.createTempDirectory(Path.of(args[1]), "scratch");
      String filler = "x".repeat(900);
      Summary summary = new Summary();
      try (Spill inputs = new Spill(scratch.resolve("inputs"));
          Spill outputs = new Spill(scratch.resolve("outputs"))) {
        List<ActorLog.Input> received = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          String id = new UUID(0x4000L | i, 0x8000000000000000L | i).toString();
          byte[] body = envelope(id, "upper", i, filler);
          received.add(new ActorLog.Input(id, 0, i % 6, i / 6, 1000L + i, inputs.append(body)));
        }
        OutputIndex index = new OutputIndex("default", "count", received, outputs);
        for (int i = 0; i < n; i++) {
          byte[] out = envelope(received.get(i).id(), "count", i, filler);
          index.offer("svc-default-x-sink", 2000L + i, out);
          index.offer("svc-default-x-sump", 3000L + i, out);
        }
        Map<String, List<ActorLog.LiveOutput>> live = index.outputs();
        long paired = 0;
        long equal = 0;
        for (ActorLog.Input in : received) {
          JsonNode sent = Json.MAPPER.readTree(inputs.read(in.body()));
          List<ActorLog.LiveOutput> outs = live.getOrDefault(in.id(), List.of());
          if (outs.size() != 1) {
            continue;
          }
          paired++;
          JsonNode answer = Json.MAPPER.readTree(outputs.read(outs.get(0).body()));
          summary.liveLatency(outs.get(0).timestamp() - in.timestamp());
          summary.candidateLatency(1);
          if (JsonDiff.diff(sent.path("payload"), answer.path("payload")).changes().isEmpty()) {
            equal++;
            summary.add(Summary.Verdict.EQUAL);
          }
        }
        System.out.println("paired " + paired + " equal " + equal);
      }
    }

    /** About 1 KiB: an envelope stamped by {@code actor}. */
    private static byte[] envelope(String id, String actor, int i, String filler) {
      return ("{\"id\":\""
              + id
              + "\",\"status\":{\"actor\":\""
              + actor
              + "\",\"phase\":\"done\"},\"payload\":{\"n\":"
              + i
              + ",\"text\":\""
              + filler
              + "\"}}")
          .getBytes(StandardCharsets.UTF_8);
    }
  }
}

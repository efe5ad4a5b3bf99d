package io.taskmesh.kvconnector;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * On-demand benchmark (not a test): the ops of {@link KvBench} (direct GET, kv GET, direct
 * conditional UPDATE, kv {@code PUT ?if_status}) at several numbers of client threads, each level
 * against the direct op at the same level, and each path's peak against the other's. One
 * concurrency alone says little: a direct pgjdbc GET peaks on this machine's two cores at 2 threads
 * (one client and one backend per core), while the connector batches more GETs per round trip the
 * more requests wait and peaks at 16-32. A peak at the first or last level is flagged: it was not
 * bracketed, so the real one may lie outside the levels. Levels and ops are interleaved in every
 * round, so load from other processes hits them alike.
 *
 * <pre>
 * mvn -B -o -q -pl benchmarks -am test-compile
 * CP="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
 * java [-Dlevels=1,2,4,8,16,32] [-Drounds=3] [-DrunMs=5000] [-DpreMs=1000] -cp "$CP" io.taskmesh.kvconnector.KvSweepBench
 * </pre>
 */
public final class KvSweepBench {
  private static final String DIRECT_GET = "direct pgjdbc GET (SELECT by key)";
  private static final String KV_GET = "kv socket GET, UnixHttpClient";
  private static final String DIRECT_PUT = "direct pgjdbc conditional UPDATE";
  private static final String KV_PUT = "kv socket PUT ?if_status, UnixHttpClient";

  private KvSweepBench() {}

  public static void main(String[] args) throws Exception {
    int[] levels =
        Arrays.stream(System.getProperty("levels", "1,2,4,8,16,32,64").split(","))
            .mapToInt(l -> Integer.parseInt(l.trim()))
            .toArray();
    int rounds = Integer.getInteger("rounds", 3);
    long runMs = Long.getLong("runMs", 5000);
    int most = Arrays.stream(levels).max().orElseThrow();
    try (BenchSetup setup = BenchSetup.start(most)) {
      BenchConnector kvB = setup.kvB;
      Map<String, KvBench.Op> all = setup.ops(false);
      Map<String, KvBench.Op> ops = new LinkedHashMap<>();
      for (String name :
          List.of(
              DIRECT_GET,
              KV_GET,
              KV_GET + BenchSetup.B,
              DIRECT_PUT,
              KV_PUT,
              KV_PUT + BenchSetup.B)) {
        if (all.containsKey(name)) {
          ops.put(name, all.get(name));
        }
      }
      for (KvBench.Op op : ops.values()) {
        KvBench.run(op, KvBench.WARMUP_MS, 8);
      }
      // perSec[op][level][round]
      Map<String, double[][]> perSec = new LinkedHashMap<>();
      ops.keySet().forEach(n -> perSec.put(n, new double[levels.length][rounds]));
      for (int round = 0; round < rounds; round++) {
        for (int l = 0; l < levels.length; l++) {
          for (Map.Entry<String, KvBench.Op> e : ops.entrySet()) {
            KvBench.run(e.getValue(), KvBench.PRE_MS, levels[l]);
            long n = KvBench.run(e.getValue(), runMs, levels[l]);
            perSec.get(e.getKey())[l][round] = n * 1000.0 / runMs;
            System.out.printf(
                "round %d  %2d threads  %-44s %9.0f ops/s%n",
                round + 1, levels[l], e.getKey(), perSec.get(e.getKey())[l][round]);
          }
        }
      }
      System.out.printf(
          "%nmedian of %d rounds of %d ms per level (each after %d ms of the same op), connector pool %d;%n"
              + "ratio = median of the per-round ratios to the direct op at the same level:%n",
          rounds, runMs, KvBench.PRE_MS, KvBench.POOL);
      System.out.printf(
          "%-8s %12s %12s %7s %12s %12s %7s%n",
          "threads", "direct GET", "kv GET", "ratio", "direct PUT", "kv PUT", "ratio");
      for (int l = 0; l < levels.length; l++) {
        System.out.printf(
            "%-8d %12.0f %12.0f %6.2fx %12.0f %12.0f %6.2fx%n",
            levels[l],
            KvBench.median(perSec.get(DIRECT_GET)[l]),
            KvBench.median(perSec.get(KV_GET)[l]),
            pairedRatio(perSec.get(KV_GET)[l], perSec.get(DIRECT_GET)[l]),
            KvBench.median(perSec.get(DIRECT_PUT)[l]),
            KvBench.median(perSec.get(KV_PUT)[l]),
            pairedRatio(perSec.get(KV_PUT)[l], perSec.get(DIRECT_PUT)[l]));
      }
      if (kvB != null) {
        System.out.printf("%n[B] at each level, against the same direct op:%n");
        for (int l = 0; l < levels.length; l++) {
          System.out.printf(
              "%-8d kv GET [B] %9.0f %6.2fx   kv PUT [B] %9.0f %6.2fx%n",
              levels[l],
              KvBench.median(perSec.get(KV_GET + BenchSetup.B)[l]),
              pairedRatio(perSec.get(KV_GET + BenchSetup.B)[l], perSec.get(DIRECT_GET)[l]),
              KvBench.median(perSec.get(KV_PUT + BenchSetup.B)[l]),
              pairedRatio(perSec.get(KV_PUT + BenchSetup.B)[l], perSec.get(DIRECT_PUT)[l]));
        }
      }
      System.out.printf("%npeak of each path over the levels (its best level's median):%n");
      peak("GET", perSec.get(KV_GET), perSec.get(DIRECT_GET), levels);
      peak("PUT ?if_status", perSec.get(KV_PUT), perSec.get(DIRECT_PUT), levels);
      if (kvB != null) {
        peak("GET [B]", perSec.get(KV_GET + BenchSetup.B), perSec.get(DIRECT_GET), levels);
        peak("PUT [B]", perSec.get(KV_PUT + BenchSetup.B), perSec.get(DIRECT_PUT), levels);
      }
    }
    System.exit(0);
  }

  private static double pairedRatio(double[] op, double[] direct) {
    double[] ratios = new double[op.length];
    for (int i = 0; i < op.length; i++) {
      ratios[i] = op[i] / direct[i];
    }
    return KvBench.median(ratios);
  }

  private static void peak(String what, double[][] kv, double[][] direct, int[] levels) {
    int bestKv = best(kv);
    int bestDirect = best(direct);
    double kvPeak = KvBench.median(kv[bestKv]);
    double directPeak = KvBench.median(direct[bestDirect]);
    System.out.printf(
        "%-15s kv %9.0f ops/s (%d threads%s), direct %9.0f ops/s (%d threads%s): %.2fx%n",
        what,
        kvPeak,
        levels[bestKv],
        edge(bestKv, levels),
        directPeak,
        levels[bestDirect],
        edge(bestDirect, levels),
        kvPeak / directPeak);
  }

  /**
   * A peak at the first or last level was not bracketed: the path may do better outside the levels.
   */
  private static String edge(int level, int[] levels) {
    return level == 0 || level == levels.length - 1 ? ", EDGE of the levels: not bracketed" : "";
  }

  private static int best(double[][] byLevel) {
    int best = 0;
    for (int l = 1; l < byLevel.length; l++) {
      if (KvBench.median(byLevel[l]) > KvBench.median(byLevel[best])) {
        best = l;
      }
    }
    return best;
  }
}

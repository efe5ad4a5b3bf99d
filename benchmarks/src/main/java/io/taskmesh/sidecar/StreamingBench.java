package io.taskmesh.sidecar;

import io.taskmesh.schemas.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Benchmark of issue 21 (not a test; see the README for the command): streamed generator answers
 * (10 frames, 50 FLY events per call) per second against plain JSON answers holding the same items,
 * from one real Python runtime over one Unix socket with the sidecar's {@link RuntimeClient}. One
 * handler ({@code streambench.answer}) returns a generator or a value depending on the payload, so
 * the two differ only in the answer's form.
 *
 * <p>Args: {@code [secondsEach=10] [itemChars=100]}.
 */
public final class StreamingBench {
  private static final int FRAMES = 10;
  private static final int FLY = 50;

  private StreamingBench() {}

  public static void main(String[] args) throws Exception {
    int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int size = args.length > 1 ? Integer.parseInt(args[1]) : 100;
    Path root = TestMesh.repoRoot();
    Path socketDir = Files.createTempDirectory("streambench");
    try (RuntimeProcess rt =
            RuntimeProcess.startReady(
                root.resolve("runtime"),
                root.resolve("benchmarks/handlers"),
                "streambench.answer",
                socketDir,
                Map.of(),
                Duration.ofSeconds(60));
        RuntimeClient client = new RuntimeClient(rt.socketPath())) {
      System.out.printf(
          "streaming bench: %d cores, java %s, %d s each, %d frames + %d FLY events of %d chars%n",
          Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"),
          seconds,
          FRAMES,
          FLY,
          size);
      byte[] stream = body("stream", size);
      byte[] plain = body("plain", size);
      run(client, stream, 1, FRAMES + FLY); // warm-up; each call's shape is checked
      run(client, plain, 1, 1);
      Result streamed = run(client, stream, seconds, FRAMES + FLY);
      Result json = run(client, plain, seconds, 1);
      System.out.printf(
          "  streamed (10 frames + 50 FLY): %8.0f calls/s  (%d items, %d bytes of JSON per call)%n",
          streamed.perSecond(), streamed.itemsPerCall, streamed.bytesPerCall);
      System.out.printf(
          "  plain JSON, same items:        %8.0f calls/s  (%d bytes of JSON per call)%n",
          json.perSecond(), json.bytesPerCall);
      System.out.printf("  streamed / plain: %.2f%n", streamed.perSecond() / json.perSecond());
    }
    System.exit(0);
  }

  private static byte[] body(String mode, int size) {
    return Json.bytes(
        Map.of(
            "id",
            "bench-" + mode,
            "route",
            Map.of("prev", List.of(), "curr", "bench", "next", List.of()),
            "payload",
            Map.of("mode", mode, "frames", FRAMES, "fly", FLY, "size", size),
            "headers",
            Map.of()));
  }

  private record Result(long calls, long nanos, int itemsPerCall, long bytesPerCall) {
    double perSecond() {
      return calls / (nanos / 1e9);
    }
  }

  private static Result run(RuntimeClient client, byte[] body, int seconds, int expectedItems) {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    long start = System.nanoTime();
    long calls = 0;
    int items = 0;
    long bytes = 0;
    do {
      AtomicLong flyBytes = new AtomicLong();
      AtomicLong flies = new AtomicLong();
      InvokeResult r =
          client.invoke(
              body,
              Duration.ofSeconds(10),
              f -> {
                flies.incrementAndGet();
                flyBytes.addAndGet(Json.bytes(f).length);
              });
      if (!(r instanceof InvokeResult.Frames frames)) {
        throw new IllegalStateException("call failed: " + r);
      }
      items = (int) flies.get() + frames.frames().size();
      bytes = flyBytes.get();
      for (InvokeResult.Frame f : frames.frames()) {
        bytes += Json.bytes(f.payload()).length;
      }
      if (items != expectedItems) {
        throw new IllegalStateException(
            "expected " + expectedItems + " items per answer, got " + items);
      }
      calls++;
    } while (System.nanoTime() < end);
    return new Result(calls, System.nanoTime() - start, items, bytes);
  }
}

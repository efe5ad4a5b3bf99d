package io.taskmesh.servicekit.sse;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import io.taskmesh.servicekit.Threads;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SseWriterTest {
  /** Holds the drain task until the test lets it run: a client that is not being written to. */
  private static final class HeldExecutor implements Executor {
    final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

    @Override
    public void execute(Runnable r) {
      tasks.add(r);
    }

    void runAll() {
      Runnable r;
      while ((r = tasks.poll()) != null) {
        r.run();
      }
    }
  }

  private final ExecutorService pool = Threads.fixedPool("sse-test", 4);
  private final RecordingSink sink = new RecordingSink();
  private final AtomicInteger closed = new AtomicInteger();

  @AfterEach
  void stop() {
    pool.shutdownNow();
  }

  private static Frame update(int seq) {
    return new Frame("update", "u" + seq, Integer.toString(seq), false, false);
  }

  private static Frame fly(int n) {
    return new Frame("partial", "f" + n, null, true, false);
  }

  @Test
  void framesGoOutInTheOrderTheyWereQueued() {
    // limits above the test's volume: a writer slower than this loop must not drop any FLY here
    SsePolicy roomy = new SsePolicy(10_000, 10_000, Duration.ofSeconds(15), "keepalive");
    SseWriter w = new SseWriter(sink, pool, roomy, closed::incrementAndGet);
    IntStream.range(0, 500).forEach(i -> w.send(i % 3 == 0 ? fly(i) : update(i)));
    Await.until(() -> sink.lines.size() == 500, Duration.ofSeconds(10), "all 500 frames written");
    assertThat(sink.lines)
        .containsExactlyElementsOf(
            IntStream.range(0, 500)
                .mapToObj(i -> i % 3 == 0 ? "partial null f" + i : "update " + i + " u" + i)
                .toList());
    assertThat(w.isClosed()).isFalse();
  }

  @Test
  void framesQueuedTogetherLeaveInOneFlushOfAtMostFlushEveryFrames() {
    HeldExecutor held = new HeldExecutor();
    SsePolicy roomy = new SsePolicy(10_000, 10_000, Duration.ofSeconds(15), "keepalive");
    SseWriter w = new SseWriter(sink, held, roomy, closed::incrementAndGet);
    IntStream.range(0, 70).forEach(i -> w.send(update(i)));
    w.keepalive();
    held.runAll();
    assertThat(sink.flushSizes).containsExactly(SseWriter.FLUSH_EVERY, SseWriter.FLUSH_EVERY, 7);
    assertThat(sink.lines).hasSize(71).endsWith(":keepalive");

    w.send(update(70)); // a lone frame goes out at once, in a flush of its own
    held.runAll();
    assertThat(sink.flushSizes).endsWith(1);
    assertThat(sink.lines).last().isEqualTo("update 70 u70");
    assertThat(w.isClosed()).isFalse();
  }

  @Test
  void droppableFramesPastTheLimitAreDroppedAndTheStreamStaysOpen() {
    HeldExecutor held = new HeldExecutor();
    SseWriter w = new SseWriter(sink, held, SsePolicy.TASK_STREAM, closed::incrementAndGet);
    int accepted = 0;
    for (int i = 0; i < 150; i++) {
      accepted += w.send(fly(i)) ? 1 : 0;
    }
    assertThat(accepted).isEqualTo(SsePolicy.SPEC_FLY_BUFFER);
    assertThat(w.send(update(1))).as("non-droppable frames still queue").isTrue();
    held.runAll();
    assertThat(sink.lines).hasSize(101).endsWith("update 1 u1");
    assertThat(sink.lines.get(99)).isEqualTo("partial null f99");
    // written frames free their places: FLY queues again
    assertThat(w.send(fly(200))).isTrue();
    assertThat(w.isClosed()).isFalse();
  }

  @Test
  void aClientTooFarBehindIsClosed() {
    HeldExecutor held = new HeldExecutor();
    SseWriter w = new SseWriter(sink, held, SsePolicy.TASK_STREAM, closed::incrementAndGet);
    for (int i = 0; i < SsePolicy.REPLAYABLE_BACKLOG; i++) {
      assertThat(w.send(update(i))).isTrue();
    }
    assertThat(w.send(update(1000))).isFalse();
    assertThat(w.isClosed()).isTrue();
    held.runAll();
    assertThat(sink.lines).as("nothing of the dropped backlog is written").isEmpty();
    assertThat(sink.closes).isEqualTo(1);
    assertThat(closed).hasValue(1);
  }

  @Test
  void anUnboundedPolicyNeverClosesForBacklog() {
    HeldExecutor held = new HeldExecutor();
    SseWriter w = new SseWriter(sink, held, SsePolicy.MESH_EVENTS, closed::incrementAndGet);
    for (int i = 0; i < 5000; i++) {
      assertThat(w.send(update(i))).isTrue();
    }
    held.runAll();
    assertThat(sink.lines).hasSize(5000);
    assertThat(w.isClosed()).isFalse();
  }

  @Test
  void theLastFrameClosesTheStreamAfterItIsWritten() {
    SseWriter w = new SseWriter(sink, pool, SsePolicy.TASK_STREAM, closed::incrementAndGet);
    w.send(update(1));
    w.send(new Frame("update", "done", "2", false, true));
    w.send(update(3));
    Await.until(() -> sink.closes == 1, Duration.ofSeconds(10), "closed after the last frame");
    assertThat(sink.lines).containsExactly("update 1 u1", "update 2 done");
    assertThat(closed).hasValue(1);
    assertThat(w.send(update(4))).isFalse();
  }

  @Test
  void finishClosesOnceTheQueueIsWritten() {
    HeldExecutor held = new HeldExecutor();
    SseWriter w = new SseWriter(sink, held, SsePolicy.A2A_STREAM, closed::incrementAndGet);
    w.send(Frame.of(null, "a"));
    w.finish();
    assertThat(w.send(Frame.of(null, "b"))).isFalse();
    held.runAll();
    assertThat(sink.lines).containsExactly("null null a");
    assertThat(sink.closes).isEqualTo(1);
  }

  @Test
  void aFailedWriteOrAGoneClientEndsTheStream() {
    SseWriter w = new SseWriter(sink, pool, SsePolicy.TASK_STREAM, closed::incrementAndGet);
    sink.failWrites = true;
    w.send(update(1));
    Await.until(w::isClosed, Duration.ofSeconds(10), "closed after a failed write");
    assertThat(closed).hasValue(1);

    RecordingSink gone = new RecordingSink();
    gone.open = false;
    SseWriter w2 = new SseWriter(gone, pool, SsePolicy.TASK_STREAM, () -> {});
    w2.send(update(1));
    Await.until(w2::isClosed, Duration.ofSeconds(10), "closed when the client is gone");
    assertThat(gone.lines).isEmpty();
  }

  /** A client whose response is gone: every write throws, as a recycled servlet response does. */
  private static final class RecycledSink implements SseSink {
    final AtomicInteger writes = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    private IllegalStateException gone() {
      writes.incrementAndGet();
      return new IllegalStateException("Response does not exist (likely recycled)");
    }

    @Override
    public void event(String event, String data, String id) {
      throw gone();
    }

    @Override
    public void comment(String text) {
      throw gone();
    }

    @Override
    public void retry(long millis) {
      throw gone();
    }

    @Override
    public boolean isOpen() {
      return true; // it does not know: only a write finds out
    }

    @Override
    public void close() {
      closes.incrementAndGet();
      throw new IllegalStateException("Response does not exist (likely recycled)");
    }
  }

  @Test
  void theFirstFailedWriteEndsTheWriterLogsOnceAndUnsubscribes() throws Exception {
    RecycledSink recycled = new RecycledSink();
    AtomicInteger unsubscribed = new AtomicInteger();
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream err = System.err;
    // slf4j-simple looks System.err up at each line: the writer's log lines land here
    System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
    try {
      SseWriter w =
          new SseWriter(recycled, pool, SsePolicy.TASK_STREAM, unsubscribed::incrementAndGet);
      for (int i = 1; i <= 200; i++) {
        w.send(update(i));
        w.keepalive();
      }
      Await.until(w::isClosed, Duration.ofSeconds(10), "closed after the first failed write");
      Await.until(() -> unsubscribed.get() == 1, Duration.ofSeconds(10), "onClose ran");
      assertThat(w.send(update(201))).as("nothing is queued after the end").isFalse();
      w.keepalive();
      w.finishWithRetry(1000);
      w.close();
    } finally {
      System.setErr(err);
    }
    assertThat(recycled.writes).as("one write tried, none after it failed").hasValue(1);
    assertThat(unsubscribed).as("onClose (unsubscribe) ran once").hasValue(1);
    assertThat(recycled.closes).hasValue(1);
    List<String> lines =
        log.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("SseWriter")).toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).contains("WARN", "write failed", "likely recycled");
    assertThat(log.toString(StandardCharsets.UTF_8)).doesNotContain("\tat ");
  }

  @Test
  void keepaliveCommentsGoToEveryOpenClientAtThePolicyInterval() {
    SsePolicy fast = SsePolicy.TASK_STREAM.withKeepalive(Duration.ofMillis(50));
    try (SseWriters writers = new SseWriters("ka-test", 2, fast)) {
      RecordingSink other = new RecordingSink();
      SseWriter a = writers.open(sink, closed::incrementAndGet);
      writers.open(other, () -> {});
      Await.until(
          () -> sink.lines.size() >= 3 && other.lines.size() >= 3,
          Duration.ofSeconds(10),
          "three keepalives each");
      assertThat(sink.lines).allMatch(":keepalive"::equals);
      a.close();
      assertThat(writers.openCount()).isEqualTo(1);
      assertThat(closed).hasValue(1);
      int after = sink.lines.size();
      Await.until(
          () -> other.lines.size() >= 6,
          Duration.ofSeconds(10),
          "the other client still kept alive");
      assertThat(sink.lines).as("a closed client gets no keepalive").hasSize(after);
    }
  }

  @Test
  void theSpecLimitsAreThePolicies() {
    assertThat(List.of(SsePolicy.TASK_STREAM, SsePolicy.MESH_EVENTS, SsePolicy.A2A_STREAM))
        .allSatisfy(p -> assertThat(p.keepaliveEvery()).isEqualTo(Duration.ofSeconds(15)));
    assertThat(SsePolicy.TASK_STREAM.maxQueuedDroppable()).isEqualTo(100);
    assertThat(SsePolicy.MESH_EVENTS.maxQueuedDroppable()).isEqualTo(100);
  }
}

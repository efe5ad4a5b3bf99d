package io.taskmesh.servicekit.sse;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.servicekit.ops.ServiceMetrics;
import io.taskmesh.servicekit.sse.SseWriter.Frame;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Shutdown drain of an endpoint's clients, and the SSE meters. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SseDrainTest {
  private static double clients(String endpoint) {
    return ServiceMetrics.registry()
        .get("taskmesh.sse.clients")
        .tag("endpoint", endpoint)
        .gauge()
        .value();
  }

  @Test
  void everyClientGetsARetryAfterItsQueuedFramesThenIsClosed() throws Exception {
    try (SseWriters writers = new SseWriters("drain-test", 2, SsePolicy.TASK_STREAM)) {
      RecordingSink a = new RecordingSink();
      RecordingSink b = new RecordingSink();
      SseWriter wa = writers.open(a, () -> {});
      writers.open(b, () -> {});
      wa.send(new Frame("update", "u1", "1", false, false));
      assertThat(clients("drain-test")).isEqualTo(2.0);

      int left = writers.finishAllWithRetry(Duration.ofMillis(1500), Duration.ofSeconds(5));

      assertThat(left).isZero();
      assertThat(a.lines).containsExactly("update 1 u1", "retry 1500");
      assertThat(b.lines).containsExactly("retry 1500");
      assertThat(a.open).isFalse();
      assertThat(b.open).isFalse();
      assertThat(writers.openCount()).isZero();
      assertThat(clients("drain-test")).isEqualTo(0.0);
      assertThat(wa.send(new Frame("update", "u2", "2", false, false)))
          .as("nothing is queued after the drain")
          .isFalse();
    }
  }

  @Test
  void droppedFlyEventsAreCounted() {
    SseWriter w = new SseWriter(new RecordingSink(), r -> {}, SsePolicy.TASK_STREAM, () -> {});
    // the counter exists from the first endpoint on (an endpoint registers the SSE meters)
    new SseWriters("fly-drop-test", 1, SsePolicy.TASK_STREAM).close();
    double before =
        ServiceMetrics.registry().get("taskmesh.sse.fly.events.dropped").counter().count();
    for (int i = 0; i < SsePolicy.SPEC_FLY_BUFFER + 7; i++) {
      w.send(new Frame("partial", "f" + i, null, true, false));
    }
    assertThat(ServiceMetrics.registry().get("taskmesh.sse.fly.events.dropped").counter().count())
        .isEqualTo(before + 7);
  }

  @Test
  void closeEndsEveryClientStillOpenAndRunsItsOnClose() {
    RecordingSink a = new RecordingSink();
    RecordingSink b = new RecordingSink();
    AtomicInteger unsubscribed = new AtomicInteger();
    SseWriters writers = new SseWriters("close-test", 2, SsePolicy.TASK_STREAM);
    SseWriter wa = writers.open(a, unsubscribed::incrementAndGet);
    SseWriter wb = writers.open(b, unsubscribed::incrementAndGet);
    assertThat(writers.openCount()).isEqualTo(2);

    writers.close();

    assertThat(wa.isClosed()).isTrue();
    assertThat(wb.isClosed()).isTrue();
    assertThat(unsubscribed).as("each client's feeds released").hasValue(2);
    assertThat(a.closes).isEqualTo(1);
    assertThat(b.closes).isEqualTo(1);
    assertThat(writers.openCount()).isZero();
    assertThat(wa.send(Frame.of("update", "late"))).isFalse();
  }
}

package io.taskmesh.servicekit.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.Await;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReadinessTest {

  @Test
  void aCheckThatNeverAnswersIsNotReadyNamedAfterItsBoundAndTheOthersStillAnswer()
      throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    Readiness readiness =
        new Readiness(Duration.ofMillis(300))
            .add("fine", () -> null)
            .add(
                "frozen",
                () -> {
                  release.await();
                  return null;
                })
            .add("broken", () -> "the broker said no");
    try {
      Readiness.Answer a = readiness.check();

      assertThat(a.ready()).isFalse();
      assertThat(a.httpStatus()).isEqualTo(503);
      assertThat(a.problems())
          .containsEntry("fine", null)
          .containsEntry("frozen", "did not answer within 300 ms")
          .containsEntry("broken", "the broker said no");
      assertThat(a.json()).contains("\"frozen\":{\"ok\":false,\"problem\":\"did not answer");
    } finally {
      release.countDown();
    }
  }

  @Test
  void aCheckStillRunningIsWaitedOnAgainNotStartedASecondTime() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger started = new AtomicInteger();
    Readiness readiness =
        new Readiness(Duration.ofMillis(200))
            .add(
                "slow",
                () -> {
                  started.incrementAndGet();
                  release.await();
                  return null;
                });
    assertThat(readiness.check().ready()).isFalse();
    assertThat(readiness.check().ready()).isFalse();
    assertThat(started).hasValue(1);

    release.countDown();
    Await.until(() -> readiness.check().ready(), Duration.ofSeconds(10), "ready once released");
  }

  @Test
  void theDefaultBoundIsTheDocumentedTwoSeconds() {
    assertThat(Readiness.CHECK_BOUND).isEqualTo(Duration.ofSeconds(2));
  }
}

package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class HeldProgressTest {
  private final List<String> sentLive = new CopyOnWriteArrayList<>();

  private static Outcome.Output event(String name) {
    return new Outcome.Output("events", "t1", name.getBytes(StandardCharsets.UTF_8));
  }

  private static String name(Outcome.Output o) {
    return new String(o.value(), StandardCharsets.UTF_8);
  }

  private void record(Outcome.Output o) {
    sentLive.add(name(o));
  }

  @Test
  void aCallThatEndsInTimeTakesItsEventsIntoItsOutcomeAheadOfItsOwnOutputs() {
    HeldProgress held = HeldProgress.start(this::record, Duration.ofMinutes(1));
    held.add(event("received"));
    held.add(event("processing"));

    Outcome o = held.prependTo(Outcome.done(List.of(event("completed"), event("envelope"))));

    assertThat(o.outputs())
        .extracting(HeldProgressTest::name)
        .containsExactly("received", "processing", "completed", "envelope");
    assertThat(o.kind()).isEqualTo(Outcome.Kind.DONE);
    assertThat(sentLive).isEmpty();
  }

  @Test
  void aCallStillRunningWhenTheHoldEndsHasItsEventsSentLiveInOrderAndNoneTakenLater()
      throws InterruptedException {
    HeldProgress held = HeldProgress.start(this::record, Duration.ofMillis(20));
    held.add(event("received"));
    held.add(event("processing"));
    while (sentLive.size() < 2) {
      Thread.sleep(5); // the hold's timer thread sends them
    }
    held.add(event("processing attempt 2"));

    Outcome o = held.prependTo(Outcome.done(List.of(event("completed"))));

    assertThat(sentLive).containsExactly("received", "processing", "processing attempt 2");
    assertThat(o.outputs()).extracting(HeldProgressTest::name).containsExactly("completed");
  }

  @Test
  void anOutcomeThatCommitsNothingCarriesNoEventsAndNoneAreSent() {
    HeldProgress held = HeldProgress.start(this::record, Duration.ofMinutes(1));
    held.add(event("received"));

    Outcome o = held.prependTo(Outcome.exitUncommitted());
    held.goLive(); // what the hold's timer would do, had it not been cancelled

    assertThat(o.outputs()).isEmpty();
    assertThat(sentLive).isEmpty();
  }

  @Test
  void eventsAddedAfterTheyWereTakenGoLive() {
    HeldProgress held = HeldProgress.start(this::record, Duration.ofMinutes(1));
    held.take();
    held.add(event("late"));
    assertThat(sentLive).containsExactly("late");
  }

  @Test
  void aTakenHoldLeavesNoTimerBehind() {
    int before = HeldProgress.pendingTimers();
    for (int i = 0; i < 100; i++) {
      HeldProgress.start(this::record, Duration.ofMinutes(1)).take();
    }
    assertThat(HeldProgress.pendingTimers()).isLessThanOrEqualTo(before);
  }
}

package io.taskmesh.gateway.fly;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** FLY that reached nobody waits a short grace time for the task's first subscriber, once. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HeldFlyTest {
  private static JsonNode token(String text) {
    return JsonNodeFactory.instance.objectNode().put("partial", true).put("text", text);
  }

  @Test
  void theFirstSubscriberGetsTheTokensPublishedBeforeItCameThenTheLiveOnes() throws Exception {
    FlyBus bus = new FlyBus();
    bus.publish("t1", token("a"));
    bus.publish("t1", token("b"));
    List<JsonNode> first = new ArrayList<>();
    List<JsonNode> second = new ArrayList<>();
    try (AutoCloseable s1 = bus.subscribe("t1", first::add)) {
      bus.publish("t1", token("c"));
      try (AutoCloseable s2 = bus.subscribe("t1", second::add)) {
        bus.publish("t1", token("d"));
      }
    }
    assertThat(first).containsExactly(token("a"), token("b"), token("c"), token("d"));
    assertThat(second).as("held events go to one subscriber only").containsExactly(token("d"));
    List<JsonNode> later = new ArrayList<>();
    try (AutoCloseable s3 = bus.subscribe("t1", later::add)) {
      assertThat(later).as("nothing is held while someone listens").isEmpty();
    }
  }

  @Test
  void heldEventsAreDroppedAfterTheGraceTime() {
    AtomicLong now = new AtomicLong(1_000);
    HeldFly held = new HeldFly(now::get);
    held.hold("old", token("x"));
    now.addAndGet(HeldFly.GRACE_MS - 1);
    held.hold("new", token("y"));
    now.addAndGet(2);

    assertThat(held.take("old")).as("past its grace time").isEmpty();
    assertThat(held.take("new")).containsExactly(token("y"));
    assertThat(held.heldTasks()).isZero();
  }

  @Test
  void memoryIsBoundedPerTaskAndInAll() {
    HeldFly held = new HeldFly(() -> 0);
    for (int i = 0; i < HeldFly.MAX_PER_TASK + 10; i++) {
      held.hold("busy", token("t" + i));
    }
    for (int i = 0; i < HeldFly.MAX_TASKS + 5; i++) {
      held.hold("task-" + i, token("x"));
    }

    assertThat(held.heldTasks()).isEqualTo(HeldFly.MAX_TASKS);
    assertThat(held.take("busy")).as("the oldest hold made room").isEmpty();
    assertThat(held.take("task-" + (HeldFly.MAX_TASKS + 4))).hasSize(1);
    HeldFly one = new HeldFly(() -> 0);
    for (int i = 0; i < HeldFly.MAX_PER_TASK + 10; i++) {
      one.hold("busy", token("t" + i));
    }
    assertThat(one.take("busy")).hasSize(HeldFly.MAX_PER_TASK).first().isEqualTo(token("t0"));
  }
}

package io.taskmesh.cli.watch;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Json;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Folding a task's updates into what a person sees, and the lines drawn from it. */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TaskProgressTest {

  private static JsonNode json(String s) throws Exception {
    return Json.MAPPER.readTree(s);
  }

  private static TaskProgress threeActors() throws Exception {
    TaskProgress p = new TaskProgress("t1");
    p.apply(
        json(
            "{\"seq\":1,\"status\":\"pending\",\"progress_percent\":0,\"actors\":[\"upper\",\"reverse\",\"count\"]}"));
    return p;
  }

  @Test
  void theRouteIsKnownFromTheFirstUpdateAndEveryActorWaits() throws Exception {
    assertThat(threeActors().actors())
        .extracting(TaskProgress.Actor::state)
        .containsOnly(TaskProgress.WAITING);
  }

  @Test
  void anActorsStateMovesItsBarAndEarlierActorsAreDone() throws Exception {
    TaskProgress p = threeActors();
    p.apply(
        json(
            "{\"seq\":2,\"status\":\"running\",\"progress_percent\":50,\"current_actor_idx\":1,"
                + "\"actor\":\"reverse\",\"actor_state\":\"processing\"}"));

    assertThat(p.actors())
        .extracting(TaskProgress.Actor::state)
        .containsExactly("completed", "processing", "waiting");
    assertThat(ProgressLines.bars(p))
        .containsExactly(
            "  upper   [####################] completed",
            "  reverse [#############.......] processing",
            "  count   [....................] waiting",
            "task t1  running  [##########..........]  50%");
  }

  @Test
  void anUpdateSeenBeforeAResumeChangesNothing() throws Exception {
    TaskProgress p = threeActors();
    p.apply(json("{\"seq\":3,\"status\":\"running\",\"progress_percent\":66}"));
    p.apply(json("{\"seq\":2,\"status\":\"pending\",\"progress_percent\":10}"));

    assertThat(p.status()).isEqualTo("running");
    assertThat(p.lastEventId()).isEqualTo("3");
  }

  @Test
  void successFillsEveryBarAndTheEndingPrettyPrintsTheResult() throws Exception {
    TaskProgress p = threeActors();
    p.apply(
        json(
            "{\"seq\":5,\"status\":\"succeeded\",\"progress_percent\":100,\"result\":{\"text\":\"FED\"}}"));

    assertThat(p.isOver()).isTrue();
    assertThat(p.succeeded()).isTrue();
    assertThat(p.actors()).extracting(TaskProgress.Actor::state).containsOnly("completed");
    assertThat(ProgressLines.ending(p)).isEqualTo("succeeded; result:\n{\n  \"text\" : \"FED\"\n}");
  }

  @Test
  void aFailureEndsWithItsError() throws Exception {
    TaskProgress p = threeActors();
    p.apply(
        json("{\"seq\":4,\"status\":\"failed\",\"error\":\"boom\",\"message\":\"actor failed\"}"));

    assertThat(p.isOver()).isTrue();
    assertThat(p.succeeded()).isFalse();
    assertThat(ProgressLines.ending(p)).isEqualTo("failed: boom");
  }

  @Test
  void aPausedTaskWaitsAndIsNotOver() throws Exception {
    TaskProgress p = threeActors();
    p.apply(json("{\"seq\":3,\"status\":\"paused\",\"message\":\"answer yes or no\"}"));

    assertThat(p.isWaiting()).isTrue();
    assertThat(p.isOver()).isFalse();
    assertThat(ProgressLines.ending(p)).isEqualTo("paused: the task waits (answer yes or no)");
  }

  @Test
  void plainLinesNameTheActorAndItsState() throws Exception {
    assertThat(
            ProgressLines.plain(
                json(
                    "{\"status\":\"running\",\"progress_percent\":33.3,\"actor\":\"upper\","
                        + "\"actor_state\":\"completed\",\"message\":\"done\"}")))
        .isEqualTo(" 33% running upper completed: done");
  }

  @Test
  void aFlyEventsTextIsItsTokenAndAnythingElseIsItsJson() throws Exception {
    assertThat(ProgressLines.token(json("{\"partial\":true,\"text\":\"tok\"}"))).isEqualTo("tok");
    assertThat(ProgressLines.token(json("{\"token\":\"t\"}"))).isEqualTo("t");
    assertThat(ProgressLines.token(json("{\"n\":1}"))).isEqualTo("{\"n\":1}");
  }
}

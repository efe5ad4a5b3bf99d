package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SmileSerdeTest {
  private final SmileSerde<TaskState> serde = new SmileSerde<>(TaskState.class);

  private static TaskState folded() {
    Route route = Route.start("a", List.of("b"));
    TaskState s =
        TaskFold.apply(
                null,
                TaskEvent.created(
                    "t1",
                    new TaskEvent.Created(
                        "flow",
                        route,
                        JsonNodeFactory.instance.objectNode().put("text", "h\u00e9llo"),
                        null,
                        "alice",
                        null,
                        "2026-11-23T10:00:00Z")))
            .orElseThrow()
            .state();
    s =
        TaskFold.apply(
                s,
                TaskEvent.progress(
                    "t1", ProgressReport.routeForm(route, ActorState.COMPLETED, null)))
            .orElseThrow()
            .state();
    return TaskFold.apply(
            s,
            TaskEvent.finished(
                "t1",
                FinalReport.succeeded(
                    "t1", JsonNodeFactory.instance.objectNode().put("n", 1.5), "b", null)))
        .orElseThrow()
        .state();
  }

  @Test
  void writesSmileAndReadsItBackEqual() {
    TaskState s = folded();
    byte[] bytes = serde.serializer().serialize("t", s);
    assertThat(new String(bytes, 0, 3, java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo(":)\n");
    assertThat(serde.deserializer().deserialize("t", bytes)).isEqualTo(s);
    assertThat(bytes.length).isLessThan(Json.bytes(s).length);
  }

  @Test
  void readsStatesThatEarlierVersionsWroteAsJson() {
    TaskState s = folded();
    assertThat(serde.deserializer().deserialize("t", Json.bytes(s))).isEqualTo(s);
  }

  @Test
  void garbageIsAnErrorNotAnEmptyState() {
    assertThatThrownBy(() -> serde.deserializer().deserialize("t", new byte[] {1, 2, 3}))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(serde.deserializer().deserialize("t", null)).isNull();
  }
}

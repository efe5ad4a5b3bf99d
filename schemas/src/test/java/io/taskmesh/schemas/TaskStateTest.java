package io.taskmesh.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TaskStateTest {
  private static final String T0 = "2026-01-01T00:00:00Z";
  private static final String T1 = "2026-01-01T00:00:01Z";
  private static final Route ROUTE = Route.start("a", List.of("b", "c"));
  private static final TaskEvent.Created CREATED =
      new TaskEvent.Created(
          "flow",
          ROUTE,
          JsonNodeFactory.instance.objectNode().put("q", 1),
          "parent",
          "ctx",
          "2026-01-01T00:05:00Z",
          "alice");

  @Test
  void anUpdateWithOnlyItsStatusOmitsEverythingElseOnTheWire() { // "final" is derived from the
    // status
    TaskUpdate u = TaskUpdate.of("t1", 2, TaskStatus.CANCELED, "Task canceled", T1);
    assertThat(Json.write(u))
        .isEqualTo(
            "{\"id\":\"t1\",\"seq\":2,\"status\":\"canceled\",\"message\":\"Task canceled\",\"timestamp\":\""
                + T1
                + "\",\"final\":true}");
    assertThat(u.isFinal()).isTrue();
  }

  @Test
  void eachUpdateWitherSetsItsOneField() {
    TaskUpdate u =
        TaskUpdate.of("t1", 3, TaskStatus.RUNNING, "a: received", T1)
            .withProgress(10.0)
            .withActorIdx(0)
            .withActorState("received")
            .withActor("a")
            .withActors(ROUTE.actors())
            .withResult(TextNode.valueOf("r"))
            .withError("e")
            .withErrorDetails(new ErrorDetails("a", "KeyError", "ProcessingError", "tb"))
            .withQuestion("q?")
            .withInputRequests(Json.MAPPER.createObjectNode().put("k", "v"));
    assertThat(u)
        .isEqualTo(
            new TaskUpdate(
                "t1",
                3,
                TaskStatus.RUNNING,
                10.0,
                0,
                "received",
                "a",
                List.of("a", "b", "c"),
                "a: received",
                TextNode.valueOf("r"),
                "e",
                new ErrorDetails("a", "KeyError", "ProcessingError", "tb"),
                "q?",
                Json.MAPPER.createObjectNode().put("k", "v"),
                T1));
    assertThat(Json.read(Json.write(u), TaskUpdate.class)).isEqualTo(u);
  }

  @Test
  void aCreatedTaskStartsAtItsFirstUpdate() {
    TaskUpdate first =
        TaskUpdate.of("t1", 1, TaskStatus.PENDING, "Task created", T0).withProgress(0.0);
    TaskState s = TaskState.created("t1", CREATED, first, "ev1");
    assertThat(s)
        .isEqualTo(
            new TaskState(
                "t1",
                "parent",
                "ctx",
                "flow",
                "alice",
                TaskStatus.PENDING,
                "Task created",
                null,
                null,
                null,
                null,
                null,
                ROUTE,
                CREATED.payload(),
                0.0,
                0,
                "a",
                null,
                0,
                3,
                T0,
                T0,
                "2026-01-01T00:05:00Z",
                1,
                List.of(first),
                List.of("ev1")));
    assertThat(s.isFinal()).isFalse();
  }

  @Test
  void withUpdateTakesTheUpdatesStatusOutcomeProgressSeqAndTime() {
    TaskState s =
        TaskState.created(
            "t1", CREATED, TaskUpdate.of("t1", 1, TaskStatus.PENDING, "Task created", T0), "ev1");
    TaskUpdate done =
        TaskUpdate.of("t1", 2, TaskStatus.SUCCEEDED, "Task completed", T1)
            .withProgress(100.0)
            .withResult(TextNode.valueOf("ok"));
    TaskState after = s.withUpdate(done);
    assertThat(after.status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(after.message()).isEqualTo("Task completed");
    assertThat(after.result()).isEqualTo(TextNode.valueOf("ok"));
    assertThat(after.error()).isNull();
    assertThat(after.progressPercent()).isEqualTo(100.0);
    assertThat(after.seq()).isEqualTo(2);
    assertThat(after.updatedAt()).isEqualTo(T1);
    assertThat(after.createdAt()).isEqualTo(T0);
    assertThat(after.history()).as("history is the fold's to append").isEqualTo(s.history());
    assertThat(after.isFinal()).isTrue();

    TaskState noPercent =
        after.withUpdate(TaskUpdate.of("t1", 3, TaskStatus.FAILED, "Task failed: x", T1));
    assertThat(noPercent.progressPercent())
        .as("an update without progress keeps it")
        .isEqualTo(100.0);
  }

  @Test
  void actorWithersChangeOnlyTheirFields() {
    TaskState s =
        TaskState.created(
            "t1", CREATED, TaskUpdate.of("t1", 1, TaskStatus.PENDING, "Task created", T0), "ev1");
    TaskState moved = s.withCurrentActor(1, "b").withActorsCompleted(1).withTotalActors(4);
    assertThat(moved.currentActorIdx()).isEqualTo(1);
    assertThat(moved.currentActorName()).isEqualTo("b");
    assertThat(moved.actorsCompleted()).isEqualTo(1);
    assertThat(moved.totalActors()).isEqualTo(4);
    assertThat(moved.withCurrentActorName("x-sink").currentActorIdx()).isEqualTo(1);
    assertThat(moved.withCurrentActor(0, "a").withActorsCompleted(0).withTotalActors(3))
        .isEqualTo(s);
    assertThat(s.withHistory(List.of()).withRecentEventIds(List.of("ev9")).recentEventIds())
        .containsExactly("ev9");
  }

  @Test
  void anAnnouncedTaskHasOnlyItsIdentityAndStatus() {
    TaskState s = TaskState.announced("t1", "t1", "alice", TaskStatus.PENDING, "Task created", T0);
    assertThat(Json.write(s))
        .isEqualTo(
            "{\"id\":\"t1\",\"context_id\":\"t1\",\"owner\":\"alice\","
                + "\"status\":\"pending\",\"message\":\"Task created\",\"progress_percent\":0.0,\"current_actor_idx\":0,"
                + "\"actors_completed\":0,\"total_actors\":0,\"created_at\":\""
                + T0
                + "\",\"updated_at\":\""
                + T0
                + "\","
                + "\"seq\":0,\"history\":[],\"recent_event_ids\":[]}");
  }
}

package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.TaskUpdate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fold on routes that grow at run time, and the actor index kept consistent with the actor
 * name.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS)
class TaskFoldTest {
  private static final Route START = Route.start("a", List.of("b"));

  private TaskState state =
      TaskFold.apply(null, TaskEvent.created("t", created(START, null))).orElseThrow().state();

  @Test
  void progressOfActorsAHandlerAddedIsAppliedAndPercentStaysMonotonic() {
    assertThat(report(START, ActorState.COMPLETED)).isPresent(); // a done: 50 %
    assertThat(state.progressPercent()).isEqualTo(50.0);
    // a added c and d after b: b is actor 1 of 4, its received is 27.5 % by the formula
    Route grown = new Route(List.of("a"), "b", List.of("c", "d"));
    TaskUpdate atB = report(grown, ActorState.RECEIVED).orElseThrow();
    assertThat(atB.progressPercent()).isEqualTo(50.0);
    assertThat(atB.actor()).isEqualTo("b");
    assertThat(atB.currentActorIdx()).isEqualTo(1);
    assertThat(atB.actors()).containsExactly("a", "b", "c", "d");
    assertThat(state.totalActors()).isEqualTo(4);
    assertThat(state.route()).isEqualTo(grown);

    TaskUpdate atC =
        report(new Route(List.of("a", "b"), "c", List.of("d")), ActorState.PROCESSING)
            .orElseThrow();
    assertThat(atC.progressPercent()).isEqualTo(62.5);
    assertThat(atC.actor()).isEqualTo("c");
    assertThat(atC.currentActorIdx()).isEqualTo(2);
    assertThat(state.currentActorName()).isEqualTo("c");
    assertThat(state.currentActorIdx()).isEqualTo(2);
    assertThat(state.route().curr()).isEqualTo("c");
  }

  @Test
  void anEarlierPointOfTheRouteIsStaleEvenWhenItsPercentIsHigher() {
    Route grown = new Route(List.of("a"), "b", List.of("c", "d"));
    report(START, ActorState.RECEIVED);
    report(grown, ActorState.PROCESSING);
    // a late "a completed" of the short route says 50 %, more than b processing's 37.5 %: still
    // stale
    assertThat(report(START, ActorState.COMPLETED)).isEmpty();
    assertThat(report(grown, ActorState.RECEIVED)).isEmpty();
    assertThat(report(grown, ActorState.PROCESSING)).isEmpty();
    assertThat(state.currentActorName()).isEqualTo("b");
    assertThat(report(grown, ActorState.COMPLETED)).isPresent();
  }

  @Test
  void theIndexFormFollowsTheRouteItCarries() {
    ProgressReport r =
        new ProgressReport(null, null, null, List.of("a", "b", "c"), 2, "received", null);
    TaskUpdate u = apply(TaskEvent.progress("t", r)).orElseThrow();
    assertThat(u.currentActorIdx()).isEqualTo(2);
    assertThat(u.actor()).isEqualTo("c");
    assertThat(state.route()).isEqualTo(new Route(List.of("a", "b"), "c", List.of()));
  }

  @Test
  void aChildCreatedPartWayAlongItsRouteStartsAtItsOwnActorIndex() {
    Route route = new Route(List.of("split"), "work", List.of("collect"));
    Optional<TaskFold.Result> child =
        TaskFold.apply(null, TaskEvent.childCreated("t-1", created(route, "t")));
    TaskState s = child.orElseThrow().state();
    assertThat(s.currentActorIdx()).isEqualTo(1);
    assertThat(s.currentActorName()).isEqualTo("work");
    assertThat(child.get().update().currentActorIdx()).isEqualTo(1);
    assertThat(s.parentId()).isEqualTo("t");
  }

  @Test
  void aSucceededTaskStandsAtTheSinkAfterItsExhaustedRoute() {
    Route grown = new Route(List.of("a"), "b", List.of("c"));
    report(grown, ActorState.COMPLETED);
    report(new Route(List.of("a", "b"), "c", List.of()), ActorState.COMPLETED);
    apply(TaskEvent.finished("t", FinalReport.succeeded("t", null, "x-sink", null))).orElseThrow();
    assertThat(state.status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(state.currentActorName()).isEqualTo("x-sink");
    assertThat(state.currentActorIdx()).isEqualTo(3);
    assertThat(state.route()).isEqualTo(new Route(List.of("a", "b", "c"), "", List.of()));
    assertThat(state.actorsCompleted()).isEqualTo(3);
    assertThat(state.progressPercent()).isEqualTo(100.0);
  }

  @Test
  void aFailureReportedByTheActorInTheRouteKeepsItsIndex() {
    report(new Route(List.of("a"), "b", List.of()), ActorState.PROCESSING);
    apply(TaskEvent.finished("t", FinalReport.failed("t", "boom", "a", null))).orElseThrow();
    assertThat(state.currentActorName()).isEqualTo("a");
    assertThat(state.currentActorIdx()).isZero();
    assertThat(state.status()).isEqualTo(TaskStatus.FAILED);
  }

  @Test
  void aHandlerFailureReportedByTheSinkNamesTheFailingActorAndKeepsItsTraceback() {
    report(new Route(List.of("a"), "b", List.of()), ActorState.PROCESSING);
    ErrorDetails details =
        new ErrorDetails("b", "KeyError", "ProcessingError", "Traceback...\nKeyError: 'text'\n");
    TaskUpdate failed =
        apply(
                TaskEvent.finished(
                    "t", FinalReport.failed("t", "KeyError: 'text'", "x-sink", null, details)))
            .orElseThrow();
    assertThat(state.currentActorName()).isEqualTo("b");
    assertThat(state.currentActorIdx()).isEqualTo(1);
    assertThat(state.errorDetails()).isEqualTo(details);
    assertThat(failed.errorDetails()).isEqualTo(details);
    assertThat(failed.error()).isEqualTo("KeyError: 'text'");
  }

  @Test
  void aPausedTaskCarriesTheHandlersQuestionAsItsMessageUntilItResumes() {
    report(START, ActorState.COMPLETED);
    TaskUpdate paused =
        apply(
                TaskEvent.paused(
                    "t", FinalReport.paused("t", "x-pause", Map.of("pause", "What is your name?"))))
            .orElseThrow();
    assertThat(paused.question()).isEqualTo("What is your name?");
    assertThat(paused.message()).isEqualTo("What is your name?");
    assertThat(state.question()).isEqualTo("What is your name?");
    apply(TaskEvent.resumed("t", "input")).orElseThrow();
    assertThat(state.question()).isNull();
  }

  @Test
  void aPausedTaskCarriesTheHandlersNamedRequestsUntilItResumes() throws Exception {
    report(START, ActorState.COMPLETED);
    com.fasterxml.jackson.databind.JsonNode requests =
        io.taskmesh.schemas.Json.MAPPER.readTree(
            "{\"confirm\": {\"method\": \"elicitation/create\", \"params\": {}}}");
    TaskUpdate paused =
        apply(
                TaskEvent.paused(
                    "t",
                    FinalReport.paused(
                        "t", "x-pause", Map.of("pause", "Sure?", "input_requests", requests))))
            .orElseThrow();
    assertThat(paused.inputRequests()).isEqualTo(requests);
    assertThat(state.inputRequests()).isEqualTo(requests);
    apply(TaskEvent.resumed("t", "input")).orElseThrow();
    assertThat(state.inputRequests()).isNull();
  }

  @Test
  void afterAPauseTheNextActorsReportsCountAgain() {
    report(START, ActorState.COMPLETED);
    TaskUpdate paused =
        apply(TaskEvent.paused("t", FinalReport.paused("t", "x-pause", null))).orElseThrow();
    assertThat(paused.actor()).isEqualTo("x-pause");
    assertThat(paused.currentActorIdx()).isEqualTo(1); // where b, the next actor, stands
    apply(TaskEvent.resumed("t", "input")).orElseThrow();
    TaskUpdate atB =
        report(new Route(List.of("a"), "b", List.of()), ActorState.RECEIVED).orElseThrow();
    assertThat(atB.actor()).isEqualTo("b");
    assertThat(atB.currentActorIdx()).isEqualTo(1);
    assertThat(atB.progressPercent()).isEqualTo(55.0);
  }

  private Optional<TaskUpdate> report(Route route, ActorState actorState) {
    return apply(TaskEvent.progress("t", ProgressReport.routeForm(route, actorState, null)));
  }

  private Optional<TaskUpdate> apply(TaskEvent event) {
    Optional<TaskFold.Result> r = TaskFold.apply(state, event);
    r.ifPresent(result -> state = result.state());
    return r.map(TaskFold.Result::update);
  }

  private static TaskEvent.Created created(Route route, String parent) {
    return new TaskEvent.Created("flow", route, null, parent, "ctx", null, null);
  }
}

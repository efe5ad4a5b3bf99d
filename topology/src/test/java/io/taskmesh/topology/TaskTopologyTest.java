package io.taskmesh.topology;

import static io.taskmesh.schemas.TaskStatus.CANCELED;
import static io.taskmesh.schemas.TaskStatus.FAILED;
import static io.taskmesh.schemas.TaskStatus.PAUSED;
import static io.taskmesh.schemas.TaskStatus.PENDING;
import static io.taskmesh.schemas.TaskStatus.RUNNING;
import static io.taskmesh.schemas.TaskStatus.SUCCEEDED;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
import io.taskmesh.schemas.Times;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TaskTopologyTest {
  private final TaskTopics topics = TaskTopics.defaults();
  private TopologyTestDriver driver;
  private TestInputTopic<String, TaskEvent> events;
  private TestOutputTopic<String, TaskUpdate> updates;
  private KeyValueStore<String, TaskState> store;
  private KeyValueStore<String, String> deadlines;
  private KeyValueStore<String, TaskUpdate> history;
  private final List<String> folded = new java.util.concurrent.CopyOnWriteArrayList<>();
  @TempDir java.nio.file.Path stateDir;

  @BeforeEach
  void setUp() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "topology-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    // own state dir: the default (/tmp/kafka-streams/<app id>) is shared by concurrent test JVMs,
    // whose RocksDB locks then collide
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    driver =
        new TopologyTestDriver(
            TaskTopology.build(
                    new StreamsBuilder(),
                    topics,
                    TaskTopology.DEFAULT_DEADLINE_SCAN,
                    false,
                    TaskTopology.DeadlineGate.ALWAYS,
                    (id, u) -> folded.add(id + " " + u.seq() + " " + u.status()))
                .build(),
            props);
    events =
        driver.createInputTopic(
            topics.events().name(),
            topics.events().keySerde().serializer(),
            topics.events().valueSerde().serializer());
    updates =
        driver.createOutputTopic(
            topics.updates().name(),
            topics.updates().keySerde().deserializer(),
            topics.updates().valueSerde().deserializer());
    store = driver.getKeyValueStore(topics.storeName());
    deadlines = driver.getKeyValueStore(TaskTopology.deadlineStoreName(topics));
    history = driver.getKeyValueStore(TaskHistory.storeName(topics));
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  @Test
  void everyUpdateReachesTheFoldedHookAsItReachesTheUpdateTopic() {
    Route route = Route.start("a", List.of("b"));
    send(created("t1", route));
    send(progress("t1", route, ActorState.RECEIVED));
    send(created("t2", route));
    send(progress("t1", route, ActorState.COMPLETED));
    send(progress("t1", route, ActorState.RECEIVED)); // stale: no update, nothing folded

    List<String> topic =
        updates.readKeyValuesToList().stream()
            .map(kv -> kv.key + " " + kv.value.seq() + " " + kv.value.status())
            .toList();
    assertThat(topic).hasSize(4);
    assertThat(folded).containsExactlyElementsOf(topic);
  }

  @Test
  void aTaskOutOfTheProcessorsRecentStatesIsReadBackFromTheStore() {
    Route route = Route.start("a", List.of("b"));
    send(created("old", route));
    send(progress("old", route, ActorState.RECEIVED));
    for (int i = 0; i < TaskTopology.RECENT_STATES + 10; i++) {
      send(created("filler-" + i, route)); // pushes "old" out of the processor's recent states
    }
    updates.readValuesToList();
    send(progress("old", route, ActorState.COMPLETED));
    send(progress("old", route, ActorState.RECEIVED)); // stale: no update

    List<TaskUpdate> out = updates.readValuesToList();
    assertThat(out).extracting(TaskUpdate::seq).containsExactly(3L);
    assertThat(out.get(0).progressPercent()).isEqualTo(50.0);
    assertThat(store.get("old").seq()).isEqualTo(3L);
    assertThat(withHistory("old").history())
        .extracting(TaskUpdate::seq)
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void foldsOneTaskFromCreatedToSucceeded() {
    Route route = Route.start("a", List.of("b"));
    send(created("t1", route));
    send(progress("t1", route, ActorState.RECEIVED));
    send(progress("t1", route, ActorState.COMPLETED));
    Route second = new Route(List.of("a"), "b", List.of());
    send(progress("t1", second, ActorState.PROCESSING));
    send(
        TaskEvent.finished(
            "t1",
            FinalReport.succeeded(
                "t1", JsonNodeFactory.instance.objectNode().put("text", "done"), "b", null)));

    List<TaskUpdate> out = updates.readValuesToList();
    assertThat(out)
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, RUNNING, RUNNING, RUNNING, SUCCEEDED);
    assertThat(out)
        .extracting(TaskUpdate::progressPercent)
        .containsExactly(0.0, 5.0, 50.0, 75.0, 100.0);
    assertThat(out).extracting(TaskUpdate::seq).containsExactly(1L, 2L, 3L, 4L, 5L);

    TaskState state = store.get("t1");
    assertThat(state.status()).isEqualTo(SUCCEEDED);
    assertThat(state.result().get("text").asText()).isEqualTo("done");
    assertThat(state.progressPercent()).isEqualTo(100.0);
    assertThat(state.totalActors()).isEqualTo(2);
    assertThat(state.actorsCompleted()).isEqualTo(2);
    assertThat(withHistory("t1").history())
        .extracting(TaskUpdate::seq)
        .containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(state.history()).as("the state store keeps no history").isEmpty();
  }

  @Test
  void duplicateStaleAndLateEventsChangeNothing() {
    Route route = Route.start("a", List.of());
    TaskEvent processing = progress("t2", route, ActorState.PROCESSING);
    send(created("t2", route));
    send(processing);
    send(processing); // same event id: re-delivery
    send(progress("t2", route, ActorState.RECEIVED)); // stale
    send(TaskEvent.finished("t2", FinalReport.failed("t2", "boom", "a", null)));
    send(TaskEvent.finished("t2", FinalReport.succeeded("t2", null, "a", null))); // after terminal
    send(progress("t2", route, ActorState.COMPLETED)); // after terminal

    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, RUNNING, FAILED);
    assertThat(store.get("t2").status()).isEqualTo(FAILED);
    assertThat(store.get("t2").error()).isEqualTo("boom");
  }

  @Test
  void progressForAnUnknownTaskAndMalformedEventsAreSkipped() {
    send(
        TaskEvent.progress(
            "ghost",
            ProgressReport.routeForm(Route.start("a", List.of()), ActorState.RECEIVED, null)));
    send(created("t3", Route.start("a", List.of())));
    send(
        TaskEvent.progress(
            "t3", new ProgressReport(List.of(), "a", List.of(), null, null, "bogus", null)));
    send(
        TaskEvent.progress(
            "t3",
            ProgressReport.routeForm(Route.start("a", List.of()), ActorState.RECEIVED, null)));

    assertThat(store.get("ghost")).isNull();
    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, RUNNING);
  }

  @Test
  void indexFormUsesTheIndexFormula() {
    send(created("t4", Route.start("a", List.of("b", "c", "d"))));
    send(
        TaskEvent.progress(
            "t4",
            new ProgressReport(
                null, null, null, List.of("a", "b", "c", "d"), 2, "processing", null)));
    TaskUpdate last = updates.readValuesToList().get(1);
    assertThat(last.progressPercent()).isEqualTo((2 * 100 + 50) / 4.0);
    assertThat(last.actor()).isEqualTo("c");
    assertThat(last.currentActorIdx()).isEqualTo(2);
  }

  @Test
  void progressNeverDecreasesAcrossForms() {
    Route route = Route.start("a", List.of("b"));
    send(created("p1", route));
    send(
        TaskEvent.progress(
            "p1", new ProgressReport(null, null, null, List.of("a", "b"), 1, "received", null)));
    send(progress("p1", route, ActorState.COMPLETED)); // 50 < 55: stale
    send(
        TaskEvent.progress(
            "p1", new ProgressReport(null, null, null, List.of("a", "b"), 1, "received", null)));
    send(
        TaskEvent.progress(
            "p1",
            new ProgressReport(List.of("a"), "b", List.of(), null, null, "processing", null)));
    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::progressPercent)
        .containsExactly(0.0, 55.0, 75.0);
    assertThat(store.get("p1").progressPercent()).isEqualTo(75.0);
  }

  @Test
  void finalFromPendingIsAccepted() {
    send(created("p2", Route.start("a", List.of())));
    send(TaskEvent.finished("p2", FinalReport.succeeded("p2", null, "x-sink", null)));
    assertThat(store.get("p2").status()).isEqualTo(SUCCEEDED);
    assertThat(store.get("p2").progressPercent()).isEqualTo(100.0);
  }

  @Test
  void pausedThenFinalOrCanceled() {
    Route route = Route.start("a", List.of("b"));
    send(created("q1", route));
    send(progress("q1", route, ActorState.PROCESSING));
    TaskEvent pause = TaskEvent.paused("q1", FinalReport.paused("q1", "a", null));
    send(pause);
    send(pause); // duplicate
    send(TaskEvent.paused("q1", FinalReport.paused("q1", "a", null))); // already paused
    send(progress("q1", route, ActorState.COMPLETED)); // late report
    TaskState paused = store.get("q1");
    assertThat(paused.status()).isEqualTo(PAUSED);
    assertThat(paused.progressPercent()).isEqualTo(25.0);
    assertThat(paused.isFinal()).isFalse();
    send(TaskEvent.finished("q1", FinalReport.failed("q1", "declined", "x-sump", null)));
    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, RUNNING, PAUSED, FAILED);

    send(created("q2", route));
    send(TaskEvent.paused("q2", FinalReport.paused("q2", "a", null)));
    send(TaskEvent.canceled("q2", "user asked"));
    assertThat(store.get("q2").status()).isEqualTo(CANCELED);
    assertThat(store.get("q2").message()).contains("user asked");
  }

  @Test
  void resumedMovesOnlyAPausedTaskBackToRunningAndProgressCountsAgain() {
    Route route = Route.start("a", List.of("b"));
    send(created("r1", route));
    send(TaskEvent.resumed("r1", "too early")); // not paused: no-op
    assertThat(store.get("r1").status()).isEqualTo(PENDING);
    send(progress("r1", route, ActorState.PROCESSING));
    send(TaskEvent.paused("r1", FinalReport.paused("r1", "x-pause", null)));
    TaskEvent resume = TaskEvent.resumed("r1", "new input");
    send(resume);
    send(resume); // duplicate
    TaskState resumed = store.get("r1");
    assertThat(resumed.status()).isEqualTo(RUNNING);
    assertThat(resumed.message()).isEqualTo("Task resumed: new input");
    assertThat(resumed.progressPercent()).isEqualTo(25.0);
    Route atB = new Route(List.of("a"), "b", List.of());
    send(progress("r1", atB, ActorState.RECEIVED));
    assertThat(store.get("r1").progressPercent()).isGreaterThan(25.0);
    send(TaskEvent.finished("r1", FinalReport.succeeded("r1", null, "x-sink", null)));
    send(TaskEvent.resumed("r1", "after the end")); // terminal: no-op
    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, RUNNING, PAUSED, RUNNING, RUNNING, SUCCEEDED);
  }

  @Test
  void cancelMovesAnyNonFinalTaskToCanceledAndIsFinal() {
    Route route = Route.start("a", List.of());
    send(created("c1", route));
    send(progress("c1", route, ActorState.RECEIVED));
    send(TaskEvent.canceled("c1", null));
    send(TaskEvent.finished("c1", FinalReport.succeeded("c1", null, "x-sink", null)));
    send(progress("c1", route, ActorState.COMPLETED));
    send(TaskEvent.paused("c1", FinalReport.paused("c1", "a", null)));
    send(TaskEvent.canceled("c1", "again"));
    send(TaskEvent.canceled("unknown", "no such task"));
    List<TaskUpdate> out = updates.readValuesToList();
    assertThat(out).extracting(TaskUpdate::status).containsExactly(PENDING, RUNNING, CANCELED);
    assertThat(out.get(2).isFinal()).isTrue();
    assertThat(store.get("c1").status()).isEqualTo(CANCELED);
    assertThat(store.get("unknown")).isNull();
  }

  @Test
  void terminalIsNeverOverwritten() {
    Route route = Route.start("a", List.of());
    send(created("f1", route));
    send(
        TaskEvent.finished(
            "f1",
            FinalReport.succeeded("f1", JsonNodeFactory.instance.textNode("ok"), "x-sink", null)));
    send(TaskEvent.finished("f1", FinalReport.failed("f1", "late", "x-sump", null)));
    send(TaskEvent.canceled("f1", null));
    send(TaskEvent.deadlineExpired("f1", Times.now()));
    send(created("f1", Route.start("b", List.of())));
    send(
        TaskEvent.childCreated(
            "f1", new TaskEvent.Created(null, route, null, "p", "p", null, null)));
    assertThat(updates.readValuesToList())
        .extracting(TaskUpdate::status)
        .containsExactly(PENDING, SUCCEEDED);
    assertThat(store.get("f1").result().asText()).isEqualTo("ok");
    // the route ran to its end (not the one of the late "created" at b)
    assertThat(store.get("f1").route()).isEqualTo(new Route(List.of("a"), "", List.of()));
  }

  @Test
  void childCreatedStartsAChildWithItsParent() {
    Route route = new Route(List.of("a"), "b", List.of("c"));
    send(
        TaskEvent.childCreated(
            "parent-1", new TaskEvent.Created(null, route, null, "parent", "ctx", null, null)));
    TaskState child = store.get("parent-1");
    assertThat(child.status()).isEqualTo(PENDING);
    assertThat(child.parentId()).isEqualTo("parent");
    assertThat(child.totalActors()).isEqualTo(3);
    assertThat(child.currentActorName()).isEqualTo("b");
    assertThat(updates.readValue().message()).isEqualTo("Child task created");
  }

  @Test
  void eventsWithoutTheirBodyAreSkipped() {
    send(new TaskEvent(null, "m1", TaskEvent.CREATED, null, null, null, null, null));
    send(created("m2", Route.start("a", List.of())));
    send(new TaskEvent(null, "m2", TaskEvent.PROGRESS, null, null, null, null, null));
    send(new TaskEvent(null, "m2", TaskEvent.FINAL, null, null, null, null, null));
    send(new TaskEvent(null, "m2", "teleported", null, null, null, null, null));
    assertThat(store.get("m1")).isNull();
    assertThat(store.get("m2").status()).isEqualTo(PENDING);
    assertThat(updates.readValuesToList()).hasSize(1);
  }

  @Test
  void aTaskPastItsDeadlineFailsWithATimeout() {
    Instant start = Instant.now();
    Route route = Route.start("a", List.of("b"));
    send(createdWithDeadline("d1", route, start.plusSeconds(5)));
    send(createdWithDeadline("d2", route, start.plusSeconds(5)));
    send(createdWithDeadline("d3", route, start.plusSeconds(60)));
    send(progress("d1", route, ActorState.PROCESSING));
    send(TaskEvent.finished("d2", FinalReport.succeeded("d2", null, "x-sink", null)));
    assertThat(indexed()).containsExactlyInAnyOrder("d1", "d3"); // d2 is final: out of the index
    updates.readValuesToList();

    driver.advanceWallClockTime(Duration.ofSeconds(6));

    List<TaskUpdate> out = updates.readValuesToList();
    assertThat(out).extracting(TaskUpdate::id).containsExactly("d1");
    assertThat(out.get(0).status()).isEqualTo(FAILED);
    assertThat(out.get(0).error()).startsWith("timeout");
    assertThat(store.get("d1").status()).isEqualTo(FAILED);
    assertThat(store.get("d1").progressPercent()).isEqualTo(25.0);
    assertThat(store.get("d2").status()).isEqualTo(SUCCEEDED);
    assertThat(store.get("d3").status()).isEqualTo(PENDING);
    assertThat(indexed()).containsExactly("d3");

    // a final report after the timeout changes nothing; a second scan emits nothing
    send(TaskEvent.finished("d1", FinalReport.succeeded("d1", null, "x-sink", null)));
    driver.advanceWallClockTime(Duration.ofSeconds(1));
    assertThat(updates.readValuesToList()).isEmpty();
    assertThat(store.get("d1").status()).isEqualTo(FAILED);
  }

  @Test
  void aPausedTaskAlsoTimesOutButACanceledOneLeavesTheIndex() {
    Instant start = Instant.now();
    Route route = Route.start("a", List.of());
    send(createdWithDeadline("e1", route, start.plusSeconds(2)));
    send(createdWithDeadline("e2", route, start.plusSeconds(2)));
    send(TaskEvent.paused("e1", FinalReport.paused("e1", "a", null)));
    send(TaskEvent.canceled("e2", null));
    updates.readValuesToList();
    driver.advanceWallClockTime(Duration.ofSeconds(3));
    assertThat(store.get("e1").status()).isEqualTo(FAILED);
    assertThat(store.get("e2").status()).isEqualTo(CANCELED);
    assertThat(updates.readValuesToList()).extracting(TaskUpdate::id).containsExactly("e1");
  }

  @Test
  void anUnreadableDeadlineIsNoBackstopAndNoCrash() {
    send(
        TaskEvent.created(
            "u1",
            new TaskEvent.Created(
                "flow", Route.start("a", List.of()), null, null, "u1", "tomorrow", null)));
    driver.advanceWallClockTime(Duration.ofSeconds(1));
    assertThat(store.get("u1").status()).isEqualTo(PENDING);
  }

  @Test
  void aDeadlineKeyIsTheTimeInSixteenDigitsThenTheIdAsStoresWrittenBeforeHaveIt() {
    for (long ms :
        new long[] {0L, 7L, 1_764_000_000_000L, 9_999_999_999_999_999L, Long.MAX_VALUE}) {
      assertThat(TaskTopology.deadlineKey(ms, "t-1"))
          .isEqualTo(String.format("%016d|%s", ms, "t-1"));
      assertThat(TaskTopology.deadlineOf(TaskTopology.deadlineKey(ms, "t-1"))).isEqualTo(ms);
    }
    assertThat(TaskTopology.deadlineKey(999, "b")).isLessThan(TaskTopology.deadlineKey(1000, "a"));
  }

  private static TaskEvent createdWithDeadline(String id, Route route, Instant deadline) {
    return TaskEvent.created(
        id,
        new TaskEvent.Created(
            "flow",
            route,
            JsonNodeFactory.instance.objectNode(),
            null,
            id,
            Times.iso(deadline),
            null));
  }

  private List<String> indexed() {
    List<String> ids = new java.util.ArrayList<>();
    try (var it = deadlines.all()) {
      it.forEachRemaining(kv -> ids.add(kv.value));
    }
    return ids;
  }

  @Test
  void theHistoryStoreKeepsTheLastUpdatesOfATaskAndTheStateNone() {
    int reports = TaskFold.MAX_HISTORY + 44;
    List<String> actors =
        java.util.stream.IntStream.range(0, reports).mapToObj(i -> "a" + i).toList();
    send(created("long", Route.start("a0", actors.subList(1, actors.size()))));
    for (int i = 0; i < reports; i++) {
      send(
          TaskEvent.progress(
              "long", new ProgressReport(null, null, null, actors, i, "completed", null)));
    }
    long last = reports + 1; // created is seq 1
    assertThat(store.get("long").seq()).isEqualTo(last);
    assertThat(store.get("long").history()).isEmpty();
    List<Long> seqs = new java.util.ArrayList<>();
    try (var it = history.all()) {
      it.forEachRemaining(kv -> seqs.add(kv.value.seq()));
    }
    assertThat(seqs)
        .hasSize(TaskFold.MAX_HISTORY)
        .first()
        .isEqualTo(last - TaskFold.MAX_HISTORY + 1);
    assertThat(withHistory("long").history())
        .extracting(TaskUpdate::seq)
        .isEqualTo(seqs)
        .isSorted();
  }

  @Test
  void aStateWrittenWithItsHistoryInlineKeepsItAndMovesItToTheHistoryStore() {
    Route route = Route.start("a", List.of("b"));
    // folded by the pure function, so the history is inline, as an earlier version stored it
    TaskState folded = TaskFold.apply(null, created("legacy", route)).orElseThrow().state();
    folded =
        TaskFold.apply(folded, progress("legacy", route, ActorState.RECEIVED))
            .orElseThrow()
            .state();
    store.put("legacy", folded);
    assertThat(withHistory("legacy").history()).extracting(TaskUpdate::seq).containsExactly(1L, 2L);

    send(progress("legacy", route, ActorState.COMPLETED));
    assertThat(store.get("legacy").history()).isEmpty();
    assertThat(withHistory("legacy").history())
        .extracting(TaskUpdate::seq)
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void anIdThatStartsWithAnotherIdAndABarDoesNotLendItsHistory() {
    Route route = Route.start("a", List.of("b"));
    send(created("x", route));
    send(progress("x", route, ActorState.RECEIVED));
    send(progress("x", route, ActorState.COMPLETED));
    String sneaky = "x|0000000000000000002|y";
    send(created(sneaky, route)); // its key sorts between x's updates 2 and 3
    assertThat(withHistory("x").history()).extracting(TaskUpdate::id).containsOnly("x");
    assertThat(withHistory(sneaky).history()).extracting(TaskUpdate::id).containsExactly(sneaky);
  }

  /** A route-form progress report without a message. */
  private static TaskEvent progress(String id, Route route, ActorState state) {
    return TaskEvent.progress(id, ProgressReport.routeForm(route, state, null));
  }

  private TaskState withHistory(String id) {
    return TaskHistory.attach(history, store.get(id));
  }

  private void send(TaskEvent e) {
    events.pipeInput(e.taskId(), e);
  }

  private static TaskEvent created(String id, Route route) {
    return TaskEvent.created(
        id,
        new TaskEvent.Created(
            "flow", route, JsonNodeFactory.instance.objectNode(), null, id, null, null));
  }
}

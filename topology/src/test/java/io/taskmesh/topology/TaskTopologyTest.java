package io.taskmesh.topology;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.ProgressReport;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskState;
import io.taskmesh.schemas.TaskUpdate;
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

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TaskTopologyTest {
  private final TaskTopics topics = TaskTopics.defaults();
  private TopologyTestDriver driver;
  private TestInputTopic<String, TaskEvent> events;
  private TestOutputTopic<String, TaskUpdate> updates;
  private KeyValueStore<String, TaskState> store;

  @BeforeEach
  void setUp() {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "topology-test");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    driver = new TopologyTestDriver(TaskTopology.build(new StreamsBuilder(), topics).build(), props);
    events = driver.createInputTopic(topics.events().name(), topics.events().keySerde().serializer(),
        topics.events().valueSerde().serializer());
    updates = driver.createOutputTopic(topics.updates().name(), topics.updates().keySerde().deserializer(),
        topics.updates().valueSerde().deserializer());
    store = driver.getKeyValueStore(topics.storeName());
  }

  @AfterEach
  void tearDown() {
    driver.close();
  }

  @Test
  void foldsOneTaskFromCreatedToSucceeded() {
    Route route = Route.start("a", List.of("b"));
    send(created("t1", route));
    send(TaskEvent.progress("t1", ProgressReport.routeForm(route, "received", null)));
    send(TaskEvent.progress("t1", ProgressReport.routeForm(route, "completed", null)));
    Route second = new Route(List.of("a"), "b", List.of());
    send(TaskEvent.progress("t1", ProgressReport.routeForm(second, "processing", null)));
    send(TaskEvent.finished("t1", new FinalReport("t1", "succeeded",
        JsonNodeFactory.instance.objectNode().put("text", "done"), null, "b", null)));

    List<TaskUpdate> out = updates.readValuesToList();
    assertThat(out).extracting(TaskUpdate::status)
        .containsExactly("pending", "running", "running", "running", "succeeded");
    assertThat(out).extracting(TaskUpdate::progressPercent).containsExactly(0.0, 5.0, 50.0, 75.0, 100.0);
    assertThat(out).extracting(TaskUpdate::seq).containsExactly(1L, 2L, 3L, 4L, 5L);

    TaskState state = store.get("t1");
    assertThat(state.status()).isEqualTo("succeeded");
    assertThat(state.result().get("text").asText()).isEqualTo("done");
    assertThat(state.progressPercent()).isEqualTo(100.0);
    assertThat(state.totalActors()).isEqualTo(2);
    assertThat(state.actorsCompleted()).isEqualTo(2);
    assertThat(state.history()).hasSize(5);
  }

  @Test
  void duplicateStaleAndLateEventsChangeNothing() {
    Route route = Route.start("a", List.of());
    TaskEvent processing = TaskEvent.progress("t2", ProgressReport.routeForm(route, "processing", null));
    send(created("t2", route));
    send(processing);
    send(processing); // same event id: re-delivery
    send(TaskEvent.progress("t2", ProgressReport.routeForm(route, "received", null))); // stale
    send(TaskEvent.finished("t2", new FinalReport("t2", "failed", null, "boom", "a", null)));
    send(TaskEvent.finished("t2", new FinalReport("t2", "succeeded", null, null, "a", null))); // after terminal
    send(TaskEvent.progress("t2", ProgressReport.routeForm(route, "completed", null))); // after terminal

    assertThat(updates.readValuesToList()).extracting(TaskUpdate::status)
        .containsExactly("pending", "running", "failed");
    assertThat(store.get("t2").status()).isEqualTo("failed");
    assertThat(store.get("t2").error()).isEqualTo("boom");
  }

  @Test
  void progressForAnUnknownTaskAndMalformedEventsAreSkipped() {
    send(TaskEvent.progress("ghost", ProgressReport.routeForm(Route.start("a", List.of()), "received", null)));
    send(created("t3", Route.start("a", List.of())));
    send(TaskEvent.progress("t3", ProgressReport.routeForm(Route.start("a", List.of()), "bogus", null)));
    send(TaskEvent.progress("t3", ProgressReport.routeForm(Route.start("a", List.of()), "received", null)));

    assertThat(store.get("ghost")).isNull();
    assertThat(updates.readValuesToList()).extracting(TaskUpdate::status).containsExactly("pending", "running");
  }

  @Test
  void indexFormUsesTheIndexFormula() {
    send(created("t4", Route.start("a", List.of("b", "c", "d"))));
    send(TaskEvent.progress("t4", new ProgressReport(null, null, null, List.of("a", "b", "c", "d"), 2,
        "processing", null)));
    TaskUpdate last = updates.readValuesToList().get(1);
    assertThat(last.progressPercent()).isEqualTo((2 * 100 + 50) / 4.0);
    assertThat(last.actor()).isEqualTo("c");
    assertThat(last.currentActorIdx()).isEqualTo(2);
  }

  private void send(TaskEvent e) {
    events.pipeInput(e.taskId(), e);
  }

  private static TaskEvent created(String id, Route route) {
    return TaskEvent.created(id, new TaskEvent.Created("flow", route,
        JsonNodeFactory.instance.objectNode(), null, id, null, null));
  }
}

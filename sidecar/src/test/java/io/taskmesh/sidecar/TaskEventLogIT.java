package io.taskmesh.sidecar;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.TaskEvent;
import io.taskmesh.schemas.TaskStatus;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Progress into the task event log named by {@code x-svc-task-events}: real broker, real runtimes,
 * two actors. The events are the gateway's own progress task events, in order, none posted over
 * HTTP, and an envelope without the header still reports over HTTP. The final event of a route that
 * ends goes the same way: with the envelope to x-sink, or from x-sink when no actor wrote it.
 */
@Timeout(120)
class TaskEventLogIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private final TestMesh mesh = new TestMesh();

  @AfterEach
  void close() {
    mesh.close();
  }

  @Test
  void progressGoesToTheEventLogInOrderAndNotOverHttp() {
    var examples = TestMesh.repoRoot().resolve("runtime/examples");
    RuntimeProcess upper = mesh.runtime(examples, "text.upper");
    RuntimeProcess reverse = mesh.runtime(examples, "text.reverse");
    ExitHook noExit =
        s -> {
          throw new AssertionError("exit " + s);
        };
    mesh.sidecar(upper, mesh.config("upper", upper.socketDir()), noExit);
    mesh.sidecar(reverse, mesh.config("reverse", reverse.socketDir()), noExit);
    String eventLog = mesh.namespace + ".task-events";
    Envelope plain = mesh.envelope("t1", Map.of("text", "ab"), "upper", "reverse");
    Map<String, Object> headers = new LinkedHashMap<>(plain.headers());
    headers.put(Envelope.TASK_EVENTS_HEADER, eventLog);
    mesh.send(new Envelope(plain.id(), null, plain.route(), null, plain.payload(), headers));
    mesh.send(mesh.envelope("h1", Map.of("text", "cd"), "upper", "reverse"));

    List<ConsumerRecord<String, byte[]>> done = mesh.read(mesh.topic("x-sink"), 2, WAIT);
    assertThat(done).extracting(ConsumerRecord::key).containsExactlyInAnyOrder("t1", "h1");
    // the last actor wrote t1's final with the envelope it handed to x-sink, and says so; h1 has
    // no log, so x-sink reports its final over HTTP as before
    assertThat(done)
        .extracting(r -> r.key() + " " + finalWrittenBy(r))
        .containsExactlyInAnyOrder("t1 reverse", "h1 null");
    // completed and the final are committed with the routed envelope, so all seven are there once
    // x-sink has it
    List<ConsumerRecord<String, byte[]>> records = mesh.read(eventLog, 7, WAIT);
    List<TaskEvent> events =
        records.stream().map(r -> Json.read(r.value(), TaskEvent.class)).toList();
    assertThat(records).allSatisfy(r -> assertThat(r.key()).isEqualTo("t1"));
    assertThat(events).hasSize(7);
    TaskEvent last = events.get(6);
    assertThat(last.type()).isEqualTo(TaskEvent.FINAL);
    assertThat(last.finalReport().status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(last.finalReport().result().path("text").asText()).isEqualTo("BA");
    assertThat(last.finalReport().currentActorName()).isEqualTo("x-sink");
    events = events.subList(0, 6);
    assertThat(events)
        .allSatisfy(
            e -> {
              assertThat(e.type()).isEqualTo(TaskEvent.PROGRESS);
              assertThat(e.taskId()).isEqualTo("t1");
            });
    assertThat(events)
        .extracting(e -> e.progress().curr() + " " + e.progress().status())
        .containsExactly(
            "upper " + ActorState.RECEIVED.wire(),
            "upper " + ActorState.PROCESSING.wire(),
            "upper " + ActorState.COMPLETED.wire(),
            "reverse " + ActorState.RECEIVED.wire(),
            "reverse " + ActorState.PROCESSING.wire(),
            "reverse " + ActorState.COMPLETED.wire());
    assertThat(events).extracting(TaskEvent::eventId).doesNotHaveDuplicates();
    assertThat(mesh.gateway.calls("t1", "progress")).isEmpty();
    assertThat(mesh.gateway.calls("h1", "progress")).hasSize(6);
  }

  @Test
  void aHandlersFailureHasItsFinalWrittenWithTheEnvelopeItHandsToXSink() {
    mesh.sidecar("boom", "testhandlers.boom");
    String eventLog = mesh.namespace + ".task-events";
    Envelope plain = mesh.envelope("b1", Map.of(), "boom", "after");
    Map<String, Object> headers = new LinkedHashMap<>(plain.headers());
    headers.put(Envelope.TASK_EVENTS_HEADER, eventLog);
    mesh.send(new Envelope(plain.id(), null, plain.route(), null, plain.payload(), headers));

    List<ConsumerRecord<String, byte[]>> sunk = mesh.read(mesh.topic("x-sink"), 1, WAIT);
    assertThat(sunk).extracting(TaskEventLogIT::finalWrittenBy).containsExactly("boom");
    List<TaskEvent> events =
        mesh.read(eventLog, 3, WAIT).stream()
            .map(r -> Json.read(r.value(), TaskEvent.class))
            .toList();
    assertThat(events).extracting(TaskEvent::type).last().isEqualTo(TaskEvent.FINAL);
    FinalReport failed = events.get(events.size() - 1).finalReport();
    assertThat(failed.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(failed.error()).isEqualTo("ValueError: boom");
    assertThat(failed.errorDetails().actor()).isEqualTo("boom");
    assertThat(failed.errorDetails().traceback()).contains("ValueError: boom");
    assertThat(mesh.gateway.calls("b1", "final")).isEmpty();
  }

  @Test
  void aLongCallShowsAsReceivedAndProcessingWhileItRuns() {
    RuntimeProcess slow = mesh.runtime("testhandlers.slow");
    mesh.sidecar(
        slow,
        mesh.config("slow", slow.socketDir()),
        s -> {
          throw new AssertionError("exit " + s);
        });
    String eventLog = mesh.namespace + ".task-events";
    Envelope plain = mesh.envelope("s1", Map.of("sleep", 2), "slow");
    Map<String, Object> headers = new LinkedHashMap<>(plain.headers());
    headers.put(Envelope.TASK_EVENTS_HEADER, eventLog);
    mesh.send(new Envelope(plain.id(), null, plain.route(), null, plain.payload(), headers));

    List<ConsumerRecord<String, byte[]>> records = mesh.read(eventLog, 4, WAIT);
    assertThat(records)
        .extracting(
            r -> {
              TaskEvent event = Json.read(r.value(), TaskEvent.class);
              return event.progress() == null ? event.type() : event.progress().status();
            })
        .containsExactly(
            ActorState.RECEIVED.wire(),
            ActorState.PROCESSING.wire(),
            ActorState.COMPLETED.wire(),
            TaskEvent.FINAL);
    // the first two were written when the hold ended, while the handler slept, not with completed
    // at its commit (two seconds later)
    assertThat(records.get(2).timestamp() - records.get(1).timestamp())
        .isGreaterThan(HeldProgress.HOLD.toMillis() + 1000);
  }

  @Test
  void aCallLongerThanHalfTheTransactionTimeoutStillHandsItsEnvelopeOnOnce() {
    RuntimeProcess slow = mesh.runtime("testhandlers.slow");
    // the batch's early transaction is aborted after a second, before the coordinator's two
    // seconds would fence the producer: the batch then commits in a transaction of its own
    mesh.sidecar(
        slow,
        mesh.config("slow-tx", slow.socketDir()).withTransactionTimeout(Duration.ofSeconds(2)),
        s -> {
          throw new AssertionError("exit " + s);
        });
    mesh.send(mesh.envelope("long", Map.of("sleep", 3), "slow-tx", "after-tx"));
    mesh.send(mesh.envelope("short", Map.of("sleep", 0), "slow-tx", "after-tx"));

    assertThat(mesh.read(mesh.topic("after-tx"), 2, WAIT))
        .extracting(ConsumerRecord::key)
        .containsExactly("long", "short");
  }

  @Test
  void finalReportGoesToTheEventLogAndNotOverHttp() {
    mesh.sink();
    String eventLog = mesh.namespace + ".task-events";
    Envelope plain = mesh.envelope("f1", Map.of("text", "DCBA"), "upper");
    Map<String, Object> headers = new LinkedHashMap<>(plain.headers());
    headers.put(Envelope.TASK_EVENTS_HEADER, eventLog);
    Route ended = new Route(List.of("upper"), "", List.of());
    mesh.send(
        mesh.topic("x-sink"),
        "f1",
        Json.bytes(new Envelope("f1", null, ended, null, plain.payload(), headers)));
    mesh.send(
        mesh.topic("x-sink"),
        "h2",
        Json.bytes(new Envelope("h2", null, ended, null, plain.payload(), plain.headers())));
    // its final already written by the actor that ended its route: x-sink writes none
    ProducerRecord<String, byte[]> written =
        new ProducerRecord<>(
            mesh.topic("x-sink"),
            "w3",
            Json.bytes(new Envelope("w3", null, ended, null, plain.payload(), headers)));
    written.headers().add(SinkActor.FINAL_WRITTEN_HEADER, "upper".getBytes(StandardCharsets.UTF_8));
    mesh.send(written);

    List<ConsumerRecord<String, byte[]>> records = mesh.read(eventLog, 1, WAIT);
    assertThat(records).hasSize(1);
    assertThat(records.get(0).key()).isEqualTo("f1");
    TaskEvent event = Json.read(records.get(0).value(), TaskEvent.class);
    assertThat(event.type()).isEqualTo(TaskEvent.FINAL);
    assertThat(event.taskId()).isEqualTo("f1");
    assertThat(event.finalReport().status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(event.finalReport().result().path("text").asText()).isEqualTo("DCBA");
    assertThat(event.finalReport().currentActorName()).isEqualTo("x-sink");
    // all reach x-sump: the one with the log once its final is committed with it
    assertThat(mesh.envelopes(mesh.topic("x-sump"), 3, WAIT))
        .extracting(Envelope::id)
        .containsExactlyInAnyOrder("f1", "h2", "w3");
    assertThat(mesh.read(eventLog, 1, WAIT))
        .as("no second final for w3, neither in the log nor over HTTP")
        .extracting(ConsumerRecord::key)
        .containsExactly("f1");
    assertThat(mesh.gateway.calls("f1", "final")).isEmpty();
    assertThat(mesh.gateway.calls("h2", "final")).hasSize(1);
    assertThat(mesh.gateway.calls("w3", "final")).isEmpty();
  }

  /** Who wrote the final of an envelope on x-sink's topic, by its header ("null": nobody). */
  private static String finalWrittenBy(ConsumerRecord<String, byte[]> r) {
    Header h = r.headers().lastHeader(SinkActor.FINAL_WRITTEN_HEADER);
    return h == null ? "null" : new String(h.value(), StandardCharsets.UTF_8);
  }
}

package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.TaskStatus;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.TopicCreator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crew actor {@code x-sink} (Java, no runtime): reports the final status of every terminal envelope
 * ({@code succeeded} with the payload as result when the route ended, else {@code failed} with the
 * error), then hands the envelope to {@code x-sump} in the same transaction as its offset. The
 * report goes into the task event log the envelope names ({@code x-svc-task-events}), in that
 * transaction too; without one, to the gateway over HTTP. An envelope whose route ended at an actor
 * comes with its final already in the log, written with it ({@link #FINAL_WRITTEN_HEADER}): x-sink
 * then only hands it on.
 */
public final class SinkActor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SinkActor.class);

  /**
   * Record header of an envelope whose final event the actor that ended its route already wrote
   * into the task event log, in the transaction that handed the envelope here (decision 0018); its
   * value is that actor's name. x-sink then writes no final of its own.
   */
  static final String FINAL_WRITTEN_HEADER = "x-svc-final-written";

  private final SidecarConfig config;
  private final GatewayReporter reporter;
  private final ExitHook exitHook;
  private final HookDispatcher hooks;
  private TopicCreator admin;
  private ActorLoop loop;

  /**
   * @param config any sidecar config of the namespace; the actor name is replaced by {@code x-sink}
   */
  public SinkActor(SidecarConfig config, GatewayReporter reporter, ExitHook exitHook) {
    this(config, CrewConfig.defaults(), reporter, exitHook);
  }

  /**
   * @param crew its {@code sinkHooks} receive every final envelope (see {@link HookDispatcher})
   */
  public SinkActor(
      SidecarConfig config, CrewConfig crew, GatewayReporter reporter, ExitHook exitHook) {
    this.config = config.withActor(Topics.SINK);
    this.reporter = reporter;
    this.exitHook = exitHook;
    this.hooks = new HookDispatcher(crew);
  }

  /** Hook calls answered 2xx since start. */
  public long hooksDelivered() {
    return hooks.delivered();
  }

  /** Hook calls given up (retries exhausted, refused, or dropped) since start. */
  public long hooksFailed() {
    return hooks.failed();
  }

  public synchronized void start() {
    admin = new TopicCreator(config.bootstrapServers());
    KafkaStart.await(admin, config);
    admin.ensure(
        List.of(config.inputTopic(), config.topicOf(Topics.SUMP), config.deadLetterTopic()),
        config.topicSpec());
    loop = new ActorLoop(config, this::handle, exitHook, admin);
    loop.start();
  }

  private Outcome handle(ConsumerRecord<String, byte[]> record) {
    EnvelopeReader.Read read = EnvelopeReader.read(record.value());
    Outcome.Output toSump =
        new Outcome.Output(config.topicOf(Topics.SUMP), record.key(), record.value());
    if (!read.valid()) {
      LOG.error("x-sink: unreadable envelope {}: {}", record.key(), read.problem());
      return Outcome.done(toSump);
    }
    try (EnvelopeTracing.Handling traced = EnvelopeTracing.start(read.envelope(), Topics.SINK)) {
      return traced.ended(report(read.envelope(), record, toSump));
    }
  }

  private Outcome report(Envelope e, ConsumerRecord<String, byte[]> record, Outcome.Output toSump) {
    List<Outcome.Output> outputs =
        record.headers().lastHeader(FINAL_WRITTEN_HEADER) != null
            ? List.of(toSump) // written already, with the envelope that brought it here
            : withFinal(e, finalReport(e, Topics.SINK), toSump);
    SidecarMetrics.of(Topics.SINK).envelope("ok");
    if (!hooks.enabled()) {
      return Outcome.done(outputs);
    }
    // hooks after the commit: they never hold back the final report, x-sump or the next envelope
    byte[] body = record.value();
    TaskStatus status = succeeded(e) ? TaskStatus.SUCCEEDED : TaskStatus.FAILED;
    return Outcome.doneThen(outputs, () -> hooks.dispatch(e.id(), status, body));
  }

  /**
   * The final event into the task event log the envelope names, with x-sump's envelope and the
   * offset in one transaction; without a log (or for a final over the record limit), over HTTP.
   */
  private List<Outcome.Output> withFinal(Envelope e, FinalReport report, Outcome.Output toSump) {
    String eventLog = TaskEventLog.topicOf(e);
    Outcome.Output finalEvent =
        eventLog == null ? null : TaskEventLog.finalEvent(eventLog, e, report);
    if (finalEvent != null) {
      return List.of(finalEvent, toSump);
    }
    reporter.finalReport(e, report);
    return List.of(toSump);
  }

  /** succeeded when the phase says so or the route ended without a failure; else failed. */
  static boolean succeeded(Envelope e) {
    EnvelopePhase phase = e.status() == null ? null : e.status().phase();
    if (phase == EnvelopePhase.SUCCEEDED) {
      return true;
    }
    return e.route().exhausted() && (phase == null || phase.inFlight());
  }

  static FinalReport finalReport(Envelope e, String reporterName) {
    EnvelopeStatus s = e.status();
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("route", e.route());
    if (e.parentId() != null) {
      meta.put("parent_id", e.parentId());
    }
    if (s != null) {
      putIfSet(meta, "actor", s.actor());
      putIfSet(meta, "reason", s.reason());
      putIfSet(meta, "attempt", s.attempt());
    }
    if (succeeded(e)) {
      return FinalReport.succeeded(e.id(), e.payload(), reporterName, meta);
    }
    String error = s == null ? null : s.error();
    if (error == null) {
      error =
          s != null && s.reason() != null
              ? s.reason()
              : "envelope ended before its route was exhausted";
    }
    ErrorDetails details = s == null ? null : s.errorDetails();
    if (details == null && s != null && s.actor() != null && s.reason() != null) {
      // a failure of the sidecar itself (timeout, crash, bad route): who and why, no traceback
      details = new ErrorDetails(s.actor(), null, s.reason(), null);
    }
    return FinalReport.failed(e.id(), error, reporterName, meta, details);
  }

  private static void putIfSet(Map<String, Object> m, String k, Object v) {
    if (v != null) {
      m.put(k, v);
    }
  }

  static JsonNode json(Object o) {
    return Json.tree(o);
  }

  @Override
  public synchronized void close() {
    if (loop != null) {
      loop.close();
    }
    hooks.close();
    if (admin != null) {
      admin.close();
    }
  }
}

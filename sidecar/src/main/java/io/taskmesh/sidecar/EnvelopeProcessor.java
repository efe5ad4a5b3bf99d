package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.node.TextNode;
import io.taskmesh.schemas.ActorState;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.ErrorDetails;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Times;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.logging.LogContext;
import io.taskmesh.servicekit.trace.TraceHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sidecar's rules for one envelope: validation, route checks, SLA pre-check, the runtime call
 * with its effective timeout and resiliency policy, and the routing of what came back.
 */
final class EnvelopeProcessor implements ActorLoop.Handler {
  private static final Logger LOG = LoggerFactory.getLogger(EnvelopeProcessor.class);

  /**
   * How long a batch's commit waits for this actor's progress reports (a slow gateway must not
   * stall the actor).
   */
  static final Duration REPORT_WAIT = Duration.ofSeconds(2);

  private static final List<String> TRACE_HEADERS =
      List.of(TraceHeaders.TRACEPARENT, TraceHeaders.TRACESTATE);

  /** How often a running handler's task is checked for having ended (canceled, past deadline). */
  private static final Duration END_CHECK_EVERY = Duration.ofSeconds(1);

  private final SidecarConfig config;
  private final RuntimeClient runtime;
  private final GatewayReporter reporter;
  private final TaskEventLog events;
  private final RetryPolicy policy;
  private final Clock clock;
  private final SidecarMetrics metrics;
  private final TaskEndWatch endWatch;

  EnvelopeProcessor(
      SidecarConfig config,
      RuntimeClient runtime,
      GatewayReporter reporter,
      TaskEventLog events,
      Clock clock) {
    this.config = config;
    this.runtime = runtime;
    this.reporter = reporter;
    this.events = events;
    this.policy = new RetryPolicy(config.maxAttempts(), config.backoff(), config.retryOn());
    this.clock = clock;
    this.metrics = SidecarMetrics.of(config.actorName());
    this.endWatch = new TaskEndWatch(reporter::taskEnded, END_CHECK_EVERY);
  }

  @Override
  public Outcome handle(ConsumerRecord<String, byte[]> record) {
    EnvelopeReader.Read read = EnvelopeReader.read(record.value());
    if (!read.valid()) {
      LOG.warn(
          "{}: invalid envelope at {}-{}@{}: {}",
          config.actorName(),
          record.topic(),
          record.partition(),
          record.offset(),
          read.problem());
      return Outcome.done(toSink(invalidEnvelope(record, read.problem())));
    }
    Envelope received = adoptRecordTrace(read.envelope(), record);
    try (EnvelopeTracing.Handling traced = EnvelopeTracing.start(received, config.actorName())) {
      Envelope handled = withTraceparent(traced.envelope());
      // the log lines of this envelope name the trace it travels on (ActorLoop's scope ends it)
      LogContext.trace(handled.header(TraceHeaders.TRACEPARENT));
      // progress for the task event log is held while the call is short (HeldProgress)
      HeldProgress held =
          TaskEventLog.topicOf(handled) == null ? null : HeldProgress.start(events::sendNow);
      Outcome o = bounded(handleValid(handled, held), handled);
      return traced.ended(held == null ? o : held.prependTo(o));
    }
  }

  /**
   * A producer outside taskmesh may put the W3C context on the Kafka record instead of the
   * envelope; an envelope without its own {@code traceparent} takes the record's, so its spans, its
   * log lines and the next actors all carry that trace instead of a new random one.
   */
  static Envelope adoptRecordTrace(Envelope e, ConsumerRecord<String, byte[]> record) {
    String own = e.header(TraceHeaders.TRACEPARENT);
    if (own != null && !own.isBlank()) {
      return e;
    }
    Header h = record.headers().lastHeader(TraceHeaders.TRACEPARENT);
    if (h == null || h.value() == null || LogContext.traceId(asText(h)) == null) {
      return e;
    }
    Map<String, Object> headers = new LinkedHashMap<>(e.headers());
    headers.put(TraceHeaders.TRACEPARENT, asText(h));
    return new Envelope(e.id(), e.parentId(), e.route(), e.status(), e.payload(), headers);
  }

  private static String asText(Header h) {
    return new String(h.value(), StandardCharsets.UTF_8);
  }

  private Outcome handleValid(Envelope e, HeldProgress held) {
    String crew = crewActorIn(e.route());
    if (crew != null) {
      return Outcome.done(
          toSink(failed(e, 0, Reasons.INVALID_ROUTE, crew + " must not be listed in a route")));
    }
    if (!config.actorName().equals(e.route().curr())) {
      return Outcome.done(
          toSink(
              failed(
                  e,
                  0,
                  Reasons.WRONG_ACTOR,
                  "route.curr is '"
                      + e.route().curr()
                      + "' but this is actor '"
                      + config.actorName()
                      + "'")));
    }
    progress(e, ActorState.RECEIVED, null, held);
    return invokeWithPolicy(e, held);
  }

  /**
   * The batch's outputs become readable downstream at its commit: from then on the next actor's
   * reports, and x-sink's final one, could overtake this actor's. So they are sent first; once per
   * batch, not once per envelope.
   */
  @Override
  public void beforeCommit() {
    reporter.awaitSent(REPORT_WAIT);
    events.flush();
  }

  /**
   * To the task event log when the envelope names one (then {@code held} is its hold), else to the
   * gateway over HTTP.
   */
  private void progress(Envelope e, ActorState state, String message, HeldProgress held) {
    if (held != null) {
      held.add(TaskEventLog.event(TaskEventLog.topicOf(e), e, e.route(), state, message));
    } else {
      reporter.progress(e, e.route(), state, message);
    }
  }

  /**
   * Calls the runtime until an attempt settles the envelope: a handler error the policy retries is
   * tried again after its backoff, a runtime crash after the runtime is back; every other answer is
   * the envelope's outcome.
   */
  private Outcome invokeWithPolicy(Envelope e, HeldProgress held) {
    Instant deadline = deadline(e);
    byte[] body = RuntimeClient.invokeBody(e);
    int crashes = 0;
    for (int attempt = 1; ; ) {
      Optional<Duration> timeLeft = effectiveTimeout(deadline);
      if (timeLeft.isEmpty()) { // SLA pre-check: the runtime is not called
        return deadlinePassed(e, attempt - 1);
      }
      Duration timeout = timeLeft.get();
      progress(e, ActorState.PROCESSING, attempt > 1 ? "attempt " + attempt : null, held);
      InvokeResult result =
          metrics.runtimeCall(
              () ->
                  endWatch.call(
                      e, () -> runtime.invoke(body, timeout, fly -> reporter.fly(e, fly))));
      if (result instanceof InvokeResult.Abandoned) {
        return abandoned(e);
      }
      if (result instanceof InvokeResult.RuntimeError err && retried(e, err, attempt)) {
        sleep(policy.backoff(attempt), deadline);
        attempt++;
        continue;
      }
      if (result instanceof InvokeResult.Unavailable u) {
        crashes++;
        Optional<Outcome> gaveUp = afterCrash(e, u, attempt, crashes);
        if (gaveUp.isPresent()) {
          return gaveUp.get();
        }
        continue;
      }
      return outcomeOf(e, result, attempt, timeout);
    }
  }

  /**
   * The task ended while its handler ran (canceled, or past its deadline): nothing goes onward, and
   * the offset is committed, so the actor takes its next envelope at once.
   */
  private Outcome abandoned(Envelope e) {
    LOG.info(
        "{}: task of {} ended while its handler ran (canceled or past its deadline):"
            + " its output is dropped",
        config.actorName(),
        e.id());
    metrics.envelope("canceled");
    return Outcome.done(List.of());
  }

  /** The actor's timeout, shortened to what is left before the deadline; empty once it passed. */
  private Optional<Duration> effectiveTimeout(Instant deadline) {
    Duration timeout = config.actorTimeout();
    if (deadline == null) {
      return Optional.of(timeout);
    }
    Duration left = Duration.between(clock.instant(), deadline);
    if (left.isNegative() || left.isZero()) {
      return Optional.empty();
    }
    return Optional.of(left.compareTo(timeout) < 0 ? left : timeout);
  }

  private Outcome deadlinePassed(Envelope e, int attempts) {
    return Outcome.done(
        toSink(
            failed(
                e,
                attempts,
                Reasons.TIMEOUT,
                "deadline " + e.status().deadlineAt() + " passed before the runtime call")));
  }

  /**
   * Whether the policy tries the failed attempt again. A parsing error never is: the same message
   * would fail the same way.
   */
  private boolean retried(Envelope e, InvokeResult.RuntimeError err, int attempt) {
    if (err.parsingError() || !policy.retries(err, attempt)) {
      return false;
    }
    LOG.info(
        "{}: {} failed ({}: {}), retry {} of {}",
        config.actorName(),
        e.id(),
        err.type(),
        boundedError(err.message()),
        attempt,
        config.maxAttempts() - 1);
    metrics.envelope("retried");
    return true;
  }

  /**
   * After the runtime went away during a call: the envelope fails once the runtime crashed {@code
   * maxDeliveries} times on it, the process exits when the runtime does not come back; empty: call
   * again.
   */
  private Optional<Outcome> afterCrash(
      Envelope e, InvokeResult.Unavailable u, int attempt, int crashes) {
    LOG.warn(
        "{}: runtime unavailable while handling {} ({}), crash {} of {}",
        config.actorName(),
        e.id(),
        u.message(),
        crashes,
        config.maxDeliveries());
    if (crashes >= config.maxDeliveries()) {
      return Optional.of(
          Outcome.done(
              toSink(
                  failed(
                      e,
                      attempt,
                      Reasons.RUNTIME_CRASHED,
                      "runtime crashed " + crashes + " times on this envelope: " + u.message()))));
    }
    try {
      runtime.awaitReady(config.actorTimeout());
      return Optional.empty();
    } catch (IllegalStateException gone) {
      LOG.error("{}: {}", config.actorName(), gone.getMessage());
      return Optional.of(Outcome.exitUncommitted());
    }
  }

  /** The outcome of an attempt that is not tried again. */
  private Outcome outcomeOf(Envelope e, InvokeResult result, int attempt, Duration timeout) {
    if (result instanceof InvokeResult.Frames f) {
      return completed(e, f, attempt);
    }
    if (result instanceof InvokeResult.Empty) {
      return Outcome.done(
          toSink(failed(e, attempt, Reasons.EMPTY_RESPONSE, "handler returned no output")));
    }
    if (result instanceof InvokeResult.RuntimeError err) {
      return handlerFailed(e, err, attempt);
    }
    if (result instanceof InvokeResult.ProtocolError p) {
      return Outcome.done(toSink(failed(e, attempt, Reasons.PROTOCOL_ERROR, p.message())));
    }
    if (result instanceof InvokeResult.TimedOut) {
      return Outcome.doneThenExit(
          toSink(
              failed(
                  e,
                  attempt,
                  Reasons.TIMEOUT,
                  "runtime call exceeded the effective timeout of " + timeout.toMillis() + " ms")));
    }
    throw new IllegalStateException("not an outcome: " + result);
  }

  private Outcome completed(Envelope e, InvokeResult.Frames f, int attempt) {
    metrics.envelope("ok");
    String eventLog = TaskEventLog.topicOf(e);
    if (eventLog == null) {
      reporter.progress(e, e.route(), ActorState.COMPLETED, null);
      return Outcome.done(route(e, f.frames(), attempt));
    }
    // completed becomes visible with the routed envelope, in the same transaction
    List<Outcome.Output> outputs = new ArrayList<>();
    outputs.add(TaskEventLog.inTransaction(eventLog, e, e.route(), ActorState.COMPLETED));
    outputs.addAll(route(e, f.frames(), attempt));
    return Outcome.done(outputs);
  }

  private Outcome handlerFailed(Envelope e, InvokeResult.RuntimeError err, int attempt) {
    if (err.parsingError()) {
      return Outcome.done(
          toSink(
              failed(
                  e, attempt, Reasons.MSG_PARSING_ERROR, "msg_parsing_error: " + err.message())));
    }
    String type = err.type().isEmpty() ? err.code() : err.type();
    Envelope failed = failed(e, attempt, Reasons.PROCESSING_ERROR, type + ": " + err.message());
    ErrorDetails details =
        new ErrorDetails(config.actorName(), type, Reasons.PROCESSING_ERROR, err.traceback());
    if (details.traceback() != null) {
      LOG.warn("{}: {} handler traceback:\n{}", config.actorName(), e.id(), details.traceback());
    }
    return Outcome.done(toSink(failed.withStatus(failed.status().withErrorDetails(details))))
        .failing(type, err.message());
  }

  /**
   * One output per frame: next actor, x-sink when the route ended, or x-pause when the handler set
   * x-svc-pause. The fan-out children (frames after the first) are registered with the gateway as
   * tasks before any of them is routed; when that fails, none is routed and the parent fails.
   */
  private List<Outcome.Output> route(Envelope in, List<InvokeResult.Frame> frames, int attempt) {
    List<Envelope> envelopes = new ArrayList<>();
    for (int i = 0; i < frames.size(); i++) {
      InvokeResult.Frame f = frames.get(i);
      // fan-out ids (spec): the first frame keeps the id, the others get UUID4 ids and the parent
      // id
      String id = i == 0 ? in.id() : childId(in, config.actorName(), i);
      String parent = i == 0 ? in.parentId() : in.id();
      Route route =
          f.route() != null
              ? f.route()
              : new Route(
                  append(in.route().prev(), config.actorName()),
                  in.route().next().isEmpty() ? "" : in.route().next().get(0),
                  tail(in.route().next()));
      envelopes.add(
          new Envelope(id, parent, route, in.status(), f.payload(), keepTrace(in, f.headers())));
    }
    List<Envelope> children =
        envelopes.size() > 1 ? envelopes.subList(1, envelopes.size()) : List.of();
    if (!reporter.registerChildren(in, children)) {
      return toSink(
          failed(
              in,
              attempt,
              Reasons.CHILD_REGISTRATION_FAILED,
              "the gateway did not register the "
                  + (envelopes.size() - 1)
                  + " fan-out children; none was routed"));
    }
    List<Outcome.Output> out = new ArrayList<>();
    for (Envelope child : envelopes) {
      Route route = child.route();
      String crew = crewActorIn(route);
      if (crew != null) {
        out.addAll(
            toSink(
                failed(
                    child,
                    attempt,
                    Reasons.INVALID_ROUTE,
                    crew + " must not be listed in a route")));
      } else if (pauseRequested(child)) { // x-pause parks it and reports "paused" (PauseActor)
        Envelope paused =
            child.withStatus(status(child, EnvelopePhase.PAUSED, attempt, null, null));
        out.add(new Outcome.Output(config.topicOf(Topics.PAUSE), child.id(), Json.bytes(paused)));
      } else if (route.exhausted()) {
        out.addAll(
            toSink(child.withStatus(status(child, EnvelopePhase.SUCCEEDED, attempt, null, null))));
      } else {
        Envelope next =
            child.withStatus(status(child, EnvelopePhase.PROCESSING, attempt, null, null));
        out.add(new Outcome.Output(config.topicOf(route.curr()), child.id(), Json.bytes(next)));
      }
    }
    return out;
  }

  /**
   * The id of fan-out child {@code index} of {@code in} at {@code actor}: UUID version 4 in form,
   * its bits taken from a SHA-256 of (envelope id, actor, hop, index) rather than from a random
   * source, so a batch handled again after a crash or an aborted transaction yields the same child
   * ids, and the gateway's registration of them is a no-op the second time. The hop (actors run
   * before) tells apart two fan-outs of one envelope at the same actor name.
   */
  static String childId(Envelope in, String actor, int index) {
    return FanOutIds.childId(in, actor, index);
  }

  /**
   * The largest record the sidecar produces: under the producer's default request limit (1 MiB),
   * with room for the key and headers.
   */
  static final int MAX_RECORD_BYTES = 1_000_000;

  /** The most of a failure's text kept in the envelope and its log line. */
  static final int MAX_ERROR_CHARS = 4096;

  /**
   * An outcome with a record over {@link #MAX_RECORD_BYTES} would fail the batch's transaction, so
   * the handler would run again on redelivery, up to the dead-letter topic, and the client would
   * learn of it only at its deadline (issue 33 item 11). Such an outcome is replaced, before
   * anything is produced, by the envelope's failure naming the size and the limit: the task fails
   * at once, and the handler is not run again.
   */
  Outcome bounded(Outcome o, Envelope in) {
    int largest = o.outputs().stream().mapToInt(out -> out.value().length).max().orElse(0);
    if (largest <= MAX_RECORD_BYTES) {
      return o;
    }
    int attempt =
        in.status() == null || in.status().attempt() == null
            ? 1
            : Math.max(1, in.status().attempt());
    List<Outcome.Output> failure =
        toSink(
            failed(
                in,
                attempt,
                Reasons.RESULT_TOO_LARGE,
                "the handler's output is "
                    + largest
                    + " bytes as an envelope, over the record limit of "
                    + MAX_RECORD_BYTES
                    + " bytes"));
    return o.kind() == Outcome.Kind.DONE_THEN_EXIT
        ? Outcome.doneThenExit(failure)
        : Outcome.done(failure);
  }

  /** A failure's text cut to {@link #MAX_ERROR_CHARS}, saying how long it was. */
  static String boundedError(String error) {
    if (error == null || error.length() <= MAX_ERROR_CHARS) {
      return error;
    }
    return error.substring(0, MAX_ERROR_CHARS)
        + "... (cut: "
        + error.length()
        + " characters in all)";
  }

  /**
   * An envelope to x-sink, and, when it names a task event log, its final event before it, in this
   * batch's transaction (decision 0018): a waiting caller has its answer, or its failure, at this
   * commit rather than x-sink's; x-sink, told by the header, hands the envelope on to its hooks and
   * x-sump without writing the final again.
   */
  private List<Outcome.Output> toSink(Envelope e) {
    String eventLog = TaskEventLog.topicOf(e);
    Outcome.Output finalEvent =
        eventLog == null
            ? null
            : TaskEventLog.finalEvent(eventLog, e, SinkActor.finalReport(e, Topics.SINK));
    if (finalEvent == null) {
      return List.of(new Outcome.Output(config.topicOf(Topics.SINK), e.id(), Json.bytes(e)));
    }
    Outcome.Output toSink =
        new Outcome.Output(
            config.topicOf(Topics.SINK),
            e.id(),
            Json.bytes(e),
            Map.of(SinkActor.FINAL_WRITTEN_HEADER, config.actorName()));
    return List.of(finalEvent, toSink);
  }

  private Envelope failed(Envelope e, int attempt, String reason, String fullError) {
    String error = boundedError(fullError);
    LOG.info("{}: {} failed ({}): {}", config.actorName(), e.id(), reason, error);
    metrics.failed(reason);
    return e.withStatus(status(e, EnvelopePhase.FAILED, attempt, reason, error));
  }

  private EnvelopeStatus status(
      Envelope e, EnvelopePhase phase, int attempt, String reason, String error) {
    EnvelopeStatus s = e.status();
    String now = Times.iso(clock.instant());
    return new EnvelopeStatus(
        phase,
        config.actorName(),
        attempt,
        config.maxAttempts(),
        s == null || s.createdAt() == null ? now : s.createdAt(),
        now,
        s == null ? null : s.deadlineAt(),
        reason,
        error);
  }

  private Envelope invalidEnvelope(ConsumerRecord<String, byte[]> r, String problem) {
    String id = EnvelopeReader.bestId(r.value(), r.key());
    if (id == null || id.isBlank()) {
      id = r.topic() + "-" + r.partition() + "-" + r.offset();
    }
    String raw = r.value() == null ? "" : new String(r.value(), StandardCharsets.UTF_8);
    raw = raw.length() > 65_536 ? raw.substring(0, 65_536) : raw;
    Envelope e =
        new Envelope(
            id,
            null,
            new Route(List.of(), config.actorName(), List.of()),
            null,
            TextNode.valueOf(raw),
            Map.of());
    return failed(e, 0, Reasons.INVALID_ENVELOPE, problem);
  }

  private static Instant deadline(Envelope e) {
    if (e.status() == null || e.status().deadlineAt() == null) {
      return null;
    }
    try {
      return Times.parse(e.status().deadlineAt());
    } catch (DateTimeParseException bad) {
      return Instant.EPOCH; // an unreadable deadline cannot be honoured: treated as passed
    }
  }

  /**
   * traceparent/tracestate are sidecar-managed: the handler's values never replace the received
   * ones.
   */
  private static Map<String, Object> keepTrace(Envelope in, Map<String, Object> frameHeaders) {
    Map<String, Object> h = new LinkedHashMap<>(frameHeaders == null ? in.headers() : frameHeaders);
    for (String name : TRACE_HEADERS) {
      if (in.headers().containsKey(name)) {
        h.put(name, in.headers().get(name));
      }
    }
    return h;
  }

  /**
   * W3C Trace Context: an envelope without {@code traceparent} gets a new one here (version 00,
   * random trace id and parent id, sampled); from then on it is kept as received, so every actor of
   * the task, fan-out children included, carries the same trace id. With spans recorded ({@link
   * EnvelopeTracing}) each actor's span context replaces it instead, under the same trace id.
   */
  static Envelope withTraceparent(Envelope e) {
    String traceparent = e.header(TraceHeaders.TRACEPARENT);
    if (traceparent != null && !traceparent.isBlank()) {
      return e;
    }
    Map<String, Object> h = new LinkedHashMap<>(e.headers());
    h.put(TraceHeaders.TRACEPARENT, TraceHeaders.random());
    return new Envelope(e.id(), e.parentId(), e.route(), e.status(), e.payload(), h);
  }

  /** Header {@code x-svc-pause} present and not blank, "false" or "0". */
  static boolean pauseRequested(Envelope e) {
    String v = e.header(Envelope.PAUSE_HEADER);
    return v != null && !v.isBlank() && !"false".equalsIgnoreCase(v) && !"0".equals(v);
  }

  static String crewActorIn(Route r) {
    if (Topics.isCrewActor(r.curr())) {
      return r.curr();
    }
    return r.next().stream()
        .filter(Topics::isCrewActor)
        .findFirst()
        .or(() -> r.prev().stream().filter(Topics::isCrewActor).findFirst())
        .orElse(null);
  }

  private void sleep(Duration d, Instant deadline) {
    if (deadline != null) {
      Duration left = Duration.between(clock.instant(), deadline);
      d = left.compareTo(d) < 0 ? (left.isNegative() ? Duration.ZERO : left) : d;
    }
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
    }
  }

  private static List<String> append(List<String> l, String s) {
    List<String> out = new ArrayList<>(l);
    out.add(s);
    return out;
  }

  private static List<String> tail(List<String> l) {
    return l.isEmpty() ? List.of() : l.subList(1, l.size());
  }
}

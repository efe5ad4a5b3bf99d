package io.taskmesh.sidecar;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.EnvelopePhase;
import io.taskmesh.schemas.EnvelopeStatus;
import io.taskmesh.schemas.FinalReport;
import io.taskmesh.schemas.InputRequests;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Times;
import io.taskmesh.schemas.Topics;
import io.taskmesh.servicekit.TopicCreator;
import java.io.IOException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crew actor {@code x-pause} (Java, no runtime): human-in-the-loop pause and resume.
 *
 * <p>Park: consumes {@code svc-{ns}-x-pause}. An envelope arrives either routed through x-pause
 * ({@code route.curr} = {@code x-pause}: the route is shifted here) or from a sidecar whose handler
 * set header {@code x-svc-pause} (the route was already shifted by that actor). It is stored, with
 * header {@code x-svc-pause} set and phase {@code paused}, on the compacted topic {@code
 * svc-{ns}-x-pause.parked} (key = envelope id) in the transaction of its offset; once that
 * committed, {@code POST {gateway}/mesh/{id}/final} with {@code status: "paused"}.
 *
 * <p>Resume: consumes {@code svc-{ns}-x-pause.resume} (key = envelope id, value {@code {"id":
 * "<id>", "input": <any JSON>}}), finds the parked envelope, sets {@code payload.input = input} (a
 * non-object payload becomes {@code {"value": <payload>, "input": <input>}}), removes {@code
 * x-svc-pause} and sends it to {@code route.curr} (x-sink when the route ended), writing a
 * tombstone for the parked record, all in one transaction. Unknown ids and unreadable resume
 * messages go to {@code svc-{ns}-x-pause.resume.dlq}.
 */
public final class PauseActor implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PauseActor.class);
  public static final String PARKED_SUFFIX = ".parked";
  public static final String RESUME_SUFFIX = ".resume";

  /** Kafka header of a dead-lettered resume message. */
  public static final String DLQ_REASON = "x-svc-dlq-reason";

  public static final String UNKNOWN_TASK = "UnknownTask";
  public static final String INVALID_RESUME = "InvalidResume";

  private final SidecarConfig config;
  private final SidecarConfig resumeConfig;
  private final CrewConfig crew;
  private final GatewayReporter reporter;
  private final ExitHook exitHook;
  private final Clock clock = Clock.systemUTC();
  private TopicCreator admin;
  private ParkedStore store;
  private ActorLoop parkLoop;
  private ActorLoop resumeLoop;

  /**
   * @param config any sidecar config of the namespace; the actor name is replaced by {@code
   *     x-pause}
   */
  public PauseActor(
      SidecarConfig config, CrewConfig crew, GatewayReporter reporter, ExitHook exitHook) {
    this.config = config.withActor(Topics.PAUSE);
    // the resume input is its own loop: group, transactional id and dead-letter topic
    // "svc-{ns}-x-pause.resume*";
    // one record per transaction so a resume is never applied twice within one batch
    this.resumeConfig = config.withActor(Topics.PAUSE + RESUME_SUFFIX).withMaxPollRecords(1);
    this.crew = crew;
    this.reporter = reporter;
    this.exitHook = exitHook;
  }

  public String parkedTopic() {
    return config.inputTopic() + PARKED_SUFFIX;
  }

  public String resumeTopic() {
    return resumeConfig.inputTopic();
  }

  public synchronized void start() {
    admin = new TopicCreator(config.bootstrapServers());
    KafkaStart.await(admin, config);
    // x-pause keeps one partition per topic whatever SVC_ACTOR_TOPIC_PARTITIONS says: every
    // replica reads the whole parked topic into its store, so partitions would share no work,
    // and with several a resume in the dev stack found no parked envelope (not understood yet)
    TopicCreator.Spec spec = config.topicSpec();
    TopicCreator.Spec one = new TopicCreator.Spec(1, spec.replication(), spec.configs());
    admin.ensure(List.of(parkedTopic()), one.compacted());
    admin.ensure(
        List.of(
            config.inputTopic(),
            resumeTopic(),
            config.topicOf(Topics.SINK),
            config.deadLetterTopic(),
            resumeConfig.deadLetterTopic()),
        one);
    store = new ParkedStore(config.bootstrapServers(), parkedTopic());
    store.catchUp();
    LOG.info(
        "x-pause: {} parked envelope(s) in {} ({} partition(s) read)",
        store.size(),
        parkedTopic(),
        store.partitions());
    parkLoop = new ActorLoop(config, this::park, exitHook, admin);
    resumeLoop = new ActorLoop(resumeConfig, this::resume, exitHook, admin);
    parkLoop.start();
    resumeLoop.start();
  }

  private Outcome park(ConsumerRecord<String, byte[]> record) {
    EnvelopeReader.Read read = EnvelopeReader.read(record.value());
    if (!read.valid()) {
      LOG.warn("x-pause: invalid envelope {}: {}", record.key(), read.problem());
      String id = EnvelopeReader.bestId(record.value(), record.key());
      Envelope e =
          new Envelope(
              id == null || id.isBlank() ? record.topic() + "-" + record.offset() : id,
              null,
              Route.start(Topics.PAUSE, List.of()),
              null,
              NullNode.getInstance(),
              Map.of());
      return Outcome.done(toSink(failed(e, Reasons.INVALID_ENVELOPE, read.problem())));
    }
    Envelope e = read.envelope();
    String crewActor = EnvelopeProcessor.crewActorIn(e.route());
    if (crewActor != null) {
      return Outcome.done(
          toSink(failed(e, Reasons.INVALID_ROUTE, crewActor + " must not be listed in a route")));
    }
    String pausedBy;
    Route route = e.route();
    if (Topics.PAUSE.equals(
        route.curr())) { // routed through x-pause: shift the route like a runtime would
      List<String> prev = new ArrayList<>(route.prev());
      prev.add(Topics.PAUSE);
      route =
          new Route(
              prev,
              route.next().isEmpty() ? "" : route.next().get(0),
              route.next().isEmpty() ? List.of() : route.next().subList(1, route.next().size()));
      pausedBy = Topics.PAUSE;
    } else if (EnvelopeProcessor.pauseRequested(
        e)) { // a handler asked for it; its sidecar already shifted
      pausedBy =
          e.status() != null && e.status().actor() != null
              ? e.status().actor()
              : route.prev().isEmpty() ? Topics.PAUSE : route.prev().get(route.prev().size() - 1);
    } else {
      return Outcome.done(
          toSink(
              failed(
                  e,
                  Reasons.WRONG_ACTOR,
                  "route.curr is '"
                      + route.curr()
                      + "' and header "
                      + Envelope.PAUSE_HEADER
                      + " is not set")));
    }
    Map<String, Object> headers = new LinkedHashMap<>(e.headers());
    if (!EnvelopeProcessor.pauseRequested(e)) {
      headers.put(Envelope.PAUSE_HEADER, "true");
    }
    Envelope parked =
        new Envelope(
            e.id(),
            e.parentId(),
            route,
            status(e, EnvelopePhase.PAUSED, null, null),
            e.payload(),
            headers);
    Map<String, Object> meta = new LinkedHashMap<>();
    meta.put("route", route);
    meta.put("paused_by", pausedBy);
    meta.put("pause", parked.header(Envelope.PAUSE_HEADER));
    Object asked = parked.headers().get(InputRequests.HEADER);
    if (asked != null) {
      // the handler named what its caller's client must answer; a malformed header is the
      // handler's mistake: the task still pauses with its question, and the log says why
      InputRequests.Read requests = InputRequests.read(asked);
      if (requests.ok()) {
        meta.put("input_requests", requests.requests());
      } else {
        LOG.warn("x-pause: {}: {}", e.id(), requests.problem());
      }
    }
    meta.put("parked_topic", parkedTopic());
    meta.put("resume_topic", resumeTopic());
    FinalReport report = FinalReport.paused(e.id(), Topics.PAUSE, meta);
    LOG.info(
        "x-pause: {} paused (by {}), next {}",
        e.id(),
        pausedBy,
        route.curr().isEmpty() ? "x-sink" : route.curr());
    // reported only once the parked record is committed: "paused" means "resumable now"
    SidecarMetrics.of(Topics.PAUSE).envelope("ok");
    return Outcome.doneThen(
        List.of(new Outcome.Output(parkedTopic(), e.id(), Json.bytes(parked))),
        () -> reporter.finalReport(parked, report));
  }

  private Outcome resume(ConsumerRecord<String, byte[]> record) {
    String id = record.key();
    JsonNode input = NullNode.getInstance();
    try {
      JsonNode root = record.value() == null ? null : Json.MAPPER.readTree(record.value());
      if (root == null || !root.isObject()) {
        return deadLetter(record, INVALID_RESUME, "resume value is not a JSON object");
      }
      if (root.path("id").isTextual() && !root.get("id").asText().isBlank()) {
        id = root.get("id").asText();
      }
      if (root.has("input")) {
        input = root.get("input");
      }
    } catch (IOException e) {
      return deadLetter(record, INVALID_RESUME, "resume value is not JSON: " + e.getMessage());
    }
    if (id == null || id.isBlank()) {
      return deadLetter(record, INVALID_RESUME, "resume without id (field 'id' or record key)");
    }
    byte[] bytes = store.find(id, crew.resumeWait());
    if (bytes == null) {
      return deadLetter(
          record, UNKNOWN_TASK, "no parked envelope " + id + " (never paused, or already resumed)");
    }
    Envelope parked = Json.read(bytes, Envelope.class);
    Envelope resumed =
        resumedEnvelope(parked, input, status(parked, EnvelopePhase.PROCESSING, null, null));
    String target;
    Envelope out;
    if (resumed.route().exhausted()) {
      target = Topics.SINK;
      out = resumed.withStatus(status(resumed, EnvelopePhase.SUCCEEDED, null, null));
    } else {
      target = resumed.route().curr();
      out = resumed;
    }
    String resumedId = id;
    LOG.info("x-pause: {} resumed to {}", id, target);
    return Outcome.doneThen(
        List.of(
            new Outcome.Output(config.topicOf(target), id, Json.bytes(out)),
            new Outcome.Output(parkedTopic(), id, null)),
        () -> store.remove(resumedId));
  }

  /** The merge rule of the README's "Resume" section. */
  static Envelope resumedEnvelope(Envelope parked, JsonNode input, EnvelopeStatus status) {
    JsonNode payload;
    if (parked.payload() != null && parked.payload().isObject()) {
      ObjectNode p = ((ObjectNode) parked.payload()).deepCopy();
      p.set("input", input);
      payload = p;
    } else {
      ObjectNode p = Json.MAPPER.createObjectNode();
      p.set("value", parked.payload());
      p.set("input", input);
      payload = p;
    }
    Map<String, Object> headers = new LinkedHashMap<>(parked.headers());
    headers.remove(Envelope.PAUSE_HEADER);
    // answered: a later pause asks its own requests, never these again
    headers.remove(InputRequests.HEADER);
    return new Envelope(parked.id(), parked.parentId(), parked.route(), status, payload, headers);
  }

  private Outcome deadLetter(ConsumerRecord<String, byte[]> r, String reason, String why) {
    LOG.warn("x-pause: resume {}@{} ({}) dead-lettered: {}", r.key(), r.offset(), reason, why);
    SidecarMetrics.of(Topics.PAUSE).envelope("dlq");
    return Outcome.done(
        new Outcome.Output(
            resumeConfig.deadLetterTopic(),
            r.key(),
            r.value(),
            Map.of(
                DLQ_REASON,
                reason,
                "x-svc-dlq-error",
                why,
                "x-svc-dlq-source",
                r.topic() + "-" + r.partition() + "@" + r.offset())));
  }

  private Outcome.Output toSink(Envelope e) {
    return new Outcome.Output(config.topicOf(Topics.SINK), e.id(), Json.bytes(e));
  }

  private Envelope failed(Envelope e, String reason, String error) {
    LOG.info("x-pause: {} failed ({}): {}", e.id(), reason, error);
    return e.withStatus(status(e, EnvelopePhase.FAILED, reason, error));
  }

  private EnvelopeStatus status(Envelope e, EnvelopePhase phase, String reason, String error) {
    EnvelopeStatus s = e.status();
    String now = Times.iso(clock.instant());
    return new EnvelopeStatus(
        phase,
        Topics.PAUSE,
        s == null ? 0 : s.attempt(),
        s == null ? null : s.maxAttempts(),
        s == null || s.createdAt() == null ? now : s.createdAt(),
        now,
        s == null ? null : s.deadlineAt(),
        reason,
        error);
  }

  @Override
  public synchronized void close() {
    if (parkLoop != null) {
      parkLoop.close();
    }
    if (resumeLoop != null) {
      resumeLoop.close();
    }
    if (store != null) {
      store.close();
    }
    if (admin != null) {
      admin.close();
    }
  }
}

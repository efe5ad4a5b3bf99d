package io.taskmesh.cli.eval;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.schemas.Json;
import io.taskmesh.schemas.Route;
import io.taskmesh.schemas.Topics;
import io.taskmesh.sidecar.InvokeResult;
import io.taskmesh.sidecar.RuntimeClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One replay: read the envelopes an actor received, run each through the candidate, pair the answer
 * with what the live actor produced for it, and write the report as it goes. Memory holds the index
 * of the envelopes (id, position, time) and two latencies per envelope; bodies are spilled to
 * scratch files and each envelope's record is written to the report when it is done.
 */
public final class ReplayEval {
  /** At most this many rows of the terminal table (the report has them all). */
  static final int TABLE_ROWS = 20;

  /** What the run is asked to do. */
  public record Options(
      String bootstrap,
      String namespace,
      String actor,
      Path runtimeDir,
      Path handlerDir,
      String handler,
      Predicate<Envelope> keep,
      ActorLog.Start start,
      long limit,
      int concurrency,
      Duration timeout,
      String scoreFunction,
      String python,
      Gate gate,
      Path reportDir,
      CandidateState state,
      Map<String, String> actorEnv) {}

  /** A row of the terminal table: an envelope that was not equal. */
  public record Row(String id, String verdict, String detail) {}

  /** What the run found. */
  public record Result(
      String id,
      Path report,
      Summary summary,
      Gate.Verdict gate,
      List<Row> rows,
      long inputs,
      Duration took,
      Duration replaying) {}

  private final Options o;
  private final Consumer<String> progress;
  private final Summary summary = new Summary();
  private final List<Row> rows = new ArrayList<>();
  private final AtomicLong done = new AtomicLong();

  private ReplayEval(Options o, Consumer<String> progress) {
    this.o = o;
    this.progress = progress;
  }

  /**
   * Runs the replay. {@code progress} receives one-line progress texts (which the caller shows as a
   * redrawn line on a terminal or as plain lines).
   *
   * @throws EvalFailure with the exit code and the one-line reason when it cannot run
   */
  public static Result run(Options o, Consumer<String> progress, Progress ticker) {
    return new ReplayEval(o, progress).run(ticker);
  }

  /** Told how far the replay is, for a progress line. */
  public interface Progress {
    void update(long done, long total, Summary summary);
  }

  private Result run(Progress ticker) {
    long started = System.nanoTime();
    String id = reportId(o.actor());
    Path scratch = scratchDir();
    Candidate candidate = null;
    CandidateState state = o.state();
    Thread hook = null;
    Scorer scorer = null;
    try (Spill inputs = new Spill(scratch.resolve("inputs"));
        Spill outputs = new Spill(scratch.resolve("outputs"));
        ActorLog log = new ActorLog(o.bootstrap(), o.namespace(), o.actor())) {
      // checked before anything runs: a scratch prefix that could hold live keys is refused
      List<Map<String, Object>> mounts = state == null ? null : state.plan(id);
      List<ActorLog.Input> received;
      Map<String, List<ActorLog.LiveOutput>> live;
      try {
        received = log.readInputs(o.start(), o.limit(), o.keep(), inputs);
        progress.accept(
            "read " + received.size() + " envelopes from " + log.inputTopic() + "; pairing...");
        live = log.readOutputs(received, outputs);
      } catch (org.apache.kafka.common.KafkaException e) {
        throw new EvalFailure(
            3, "cannot read the log on " + o.bootstrap() + ": " + firstLine(e.getMessage()));
      }
      progress.accept(
          live.size() + " of " + received.size() + " envelopes have a live output; replaying...");
      Map<String, String> stateEnv = Map.of();
      AtomicReference<Candidate> running = new AtomicReference<>();
      hook =
          new Thread(
              () -> {
                Candidate c = running.get();
                if (c != null) {
                  c.close();
                }
                if (state != null) {
                  state.close();
                }
                // Ctrl-C or TERM: the main thread's finally does not run
                Candidate.deleteTree(scratch);
              },
              "replay-eval-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      if (state != null) {
        progress.accept("starting the state connectors of the candidate's mounts...");
        stateEnv = state.start(scratch.resolve("state"));
      }
      // the live actor's own variables (actors.yaml env:), as its runtime has them, then the
      // scratch mounts in place of the live ones
      Map<String, String> candidateEnv = new java.util.HashMap<>(o.actorEnv());
      candidateEnv.putAll(stateEnv);
      candidate =
          new Candidate(
              o.runtimeDir(), o.handlerDir(), o.handler(), scratch.resolve("rt"), candidateEnv);
      running.set(candidate);
      candidate.start();
      if (o.scoreFunction() != null) {
        scorer =
            Scorer.start(
                o.python(),
                o.scoreFunction(),
                List.of(Path.of("").toAbsolutePath(), o.handlerDir()));
      }
      Path reportFile = o.reportDir().resolve(id + ".json");
      try (Report report = new Report(reportFile, header(id, log.inputTopic(), mounts))) {
        long replayStart = System.nanoTime();
        replay(received, live, inputs, outputs, candidate, scorer, report, ticker);
        Duration replaying = Duration.ofNanos(System.nanoTime() - replayStart);
        Gate.Verdict verdict =
            o.gate() == null
                ? new Gate.Verdict(false, List.of())
                : o.gate().evaluate(summary::metric);
        report.finish(summary, o.gate(), verdict);
        List<Row> table;
        synchronized (rows) {
          table = List.copyOf(rows);
        }
        return new Result(
            id,
            reportFile,
            summary,
            verdict,
            table,
            received.size(),
            Duration.ofNanos(System.nanoTime() - started),
            replaying);
      }
    } finally {
      if (scorer != null) {
        scorer.close();
      }
      if (candidate != null) {
        candidate.close();
      }
      if (state != null) {
        state.close();
      }
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook runs anyway
        }
      }
      Candidate.deleteTree(scratch);
    }
  }

  /**
   * Runs the envelopes on {@code concurrency} workers, each taking the next envelope when it is
   * done with one (as the raw calls of the benchmark do): no hand-off per envelope from a
   * dispatching thread, and at most {@code concurrency} envelopes in flight. The first failure
   * stops the workers from taking more; it is thrown when the envelopes in flight are done.
   */
  private void replay(
      List<ActorLog.Input> received,
      Map<String, List<ActorLog.LiveOutput>> live,
      Spill inputs,
      Spill outputs,
      Candidate candidate,
      Scorer scorer,
      Report report,
      Progress ticker) {
    AtomicInteger next = new AtomicInteger();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    long total = received.size();
    Runnable work =
        () -> {
          for (int i = next.getAndIncrement();
              i < received.size() && failure.get() == null;
              i = next.getAndIncrement()) {
            ActorLog.Input in = received.get(i);
            try {
              ObjectNode entry =
                  evaluate(
                      in,
                      live.getOrDefault(in.id(), List.of()),
                      inputs,
                      outputs,
                      candidate,
                      scorer);
              report.envelope(entry);
              ticker.update(done.incrementAndGet(), total, summary);
            } catch (RuntimeException e) {
              failure.compareAndSet(null, e);
            }
          }
        };
    int workers = (int) Math.min(o.concurrency(), Math.max(1, total));
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    try {
      for (int w = 0; w < workers; w++) {
        pool.execute(work);
      }
    } finally {
      pool.shutdown();
      try {
        while (!pool.awaitTermination(1, TimeUnit.SECONDS)) {
          // waits for the envelopes in flight: each is bounded by the per-envelope timeout
        }
      } catch (InterruptedException e) {
        pool.shutdownNow();
        Thread.currentThread().interrupt();
      }
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  private ObjectNode evaluate(
      ActorLog.Input in,
      List<ActorLog.LiveOutput> liveOuts,
      Spill inputs,
      Spill outputs,
      Candidate candidate,
      Scorer scorer) {
    Envelope envelope;
    try {
      envelope = Json.MAPPER.readValue(inputs.read(in.body()), Envelope.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    long t0 = System.nanoTime();
    InvokeResult answer = candidate.invoke(RuntimeClient.invokeBody(envelope), o.timeout());
    long candidateMs = (System.nanoTime() - t0) / 1_000_000;
    summary.candidateLatency(candidateMs);

    ObjectNode entry = Json.MAPPER.createObjectNode();
    entry.put("id", in.id());
    entry.put("partition", in.partition());
    entry.put("offset", in.offset());

    ObjectNode liveNode = entry.putObject("live");
    ArrayNode liveOutputs = null;
    String liveError = null;
    if (!liveOuts.isEmpty()) {
      long liveMs = Math.max(0, liveOuts.get(0).timestamp() - in.timestamp());
      summary.liveLatency(liveMs);
      liveNode.put("latency_ms", liveMs);
      liveOutputs = Json.MAPPER.createArrayNode();
      for (ActorLog.LiveOutput out : liveOuts) {
        JsonNode v = tree(outputs.read(out.body()));
        if (out.failed() && out.index() == 0) {
          JsonNode status = v.path("status");
          liveError =
              status.path("reason").asText("failed") + ": " + status.path("error").asText("");
          liveNode.put("error", liveError);
          JsonNode tb = status.path("error_details").path("traceback");
          if (tb.isTextual()) {
            liveNode.put("traceback", tb.asText());
          }
          liveOutputs = null;
          break;
        }
        liveOutputs.add(output(out.to(), v.path("payload")));
      }
      if (liveOutputs != null) {
        liveNode.set("outputs", liveOutputs);
      }
    }

    ObjectNode candNode = entry.putObject("candidate");
    candNode.put("latency_ms", candidateMs);
    ArrayNode candOutputs = null;
    String candError = null;
    if (answer instanceof InvokeResult.Frames f) {
      candOutputs = Json.MAPPER.createArrayNode();
      for (InvokeResult.Frame frame : f.frames()) {
        candOutputs.add(output(destination(envelope, frame), frame.payload()));
      }
      candNode.set("outputs", candOutputs);
    } else {
      candError = describe(answer);
      candNode.put("error", candError);
      if (answer instanceof InvokeResult.RuntimeError err && err.traceback() != null) {
        candNode.put("traceback", err.traceback());
      }
    }

    Summary.Verdict verdict;
    String detail = null;
    if (candError != null) {
      verdict = Summary.Verdict.CANDIDATE_ERROR;
      detail = candError;
    } else if (liveError != null) {
      verdict = Summary.Verdict.LIVE_ERROR;
      detail = liveError;
    } else if (liveOutputs == null) {
      verdict = Summary.Verdict.NO_LIVE_OUTPUT;
      detail = "no output of the live actor found in the retained log";
    } else {
      JsonDiff.Result diff = diff(liveOutputs, candOutputs);
      verdict = diff.equal() ? Summary.Verdict.EQUAL : Summary.Verdict.DIFFERENT;
      if (!diff.equal()) {
        ArrayNode changes = entry.putArray("diff");
        for (JsonDiff.Change c : diff.changes()) {
          ObjectNode cn = changes.addObject();
          cn.put("path", c.path());
          cn.put("change", c.kind().wire());
          if (c.live() != null) {
            cn.set("live", c.live());
          }
          if (c.candidate() != null) {
            cn.set("candidate", c.candidate());
          }
        }
        if (diff.truncated()) {
          entry.put("diff_truncated", true);
        }
        detail = JsonDiff.paths(diff, 3);
      }
      if (scorer != null) {
        Scorer.Score s =
            scorer.score(scoreValue(liveOutputs), scoreValue(candOutputs), Json.tree(envelope));
        if (s.value() != null) {
          entry.put("score", s.value());
          summary.score(s.value());
        } else {
          entry.put("score_error", s.error());
          summary.scoreFailed();
        }
      }
    }
    entry.put("verdict", verdict.wire());
    summary.add(verdict);
    if (verdict != Summary.Verdict.EQUAL) {
      synchronized (rows) {
        if (rows.size() < TABLE_ROWS) {
          rows.add(new Row(in.id(), verdict.wire(), firstLine(detail)));
        }
      }
    }
    return entry;
  }

  /**
   * Both sides as the comparison sees them: one output is compared as {@code {"to", "payload"}}
   * (paths like {@code /payload/text}); fan-out as the list of them in frame order ({@code
   * /1/payload/text}).
   */
  static JsonDiff.Result diff(ArrayNode live, ArrayNode candidate) {
    if (live.size() == 1 && candidate.size() == 1) {
      return JsonDiff.diff(live.get(0), candidate.get(0));
    }
    return JsonDiff.diff(live, candidate);
  }

  private static JsonNode scoreValue(ArrayNode outputs) {
    if (outputs.size() == 1) {
      return outputs.get(0).path("payload");
    }
    ArrayNode a = Json.MAPPER.createArrayNode();
    outputs.forEach(o -> a.add(o.path("payload")));
    return a;
  }

  private static ObjectNode output(String to, JsonNode payload) {
    ObjectNode n = Json.MAPPER.createObjectNode();
    n.put("to", to);
    n.set("payload", payload);
    return n;
  }

  /**
   * Where the sidecar would route a candidate frame: x-pause when it asks to pause, x-sink when its
   * route is done, else the next actor (the frame's own route when the handler changed it).
   */
  static String destination(Envelope in, InvokeResult.Frame f) {
    Map<String, Object> headers = f.headers() == null ? in.headers() : f.headers();
    Object pause = headers.get(Envelope.PAUSE_HEADER);
    String p = pause == null ? "" : pause.toString();
    if (!p.isBlank() && !"false".equalsIgnoreCase(p) && !"0".equals(p)) {
      return Topics.PAUSE;
    }
    Route r = f.route();
    String next =
        r != null ? r.curr() : in.route().next().isEmpty() ? "" : in.route().next().get(0);
    return next.isEmpty() ? Topics.SINK : next;
  }

  static String describe(InvokeResult r) {
    if (r instanceof InvokeResult.RuntimeError e) {
      return (e.type().isEmpty() ? e.code() : e.type()) + ": " + e.message();
    }
    if (r instanceof InvokeResult.Empty) {
      return "the handler returned no output";
    }
    if (r instanceof InvokeResult.ProtocolError p) {
      return "the runtime's answer broke the protocol: " + p.message();
    }
    if (r instanceof InvokeResult.Unavailable u) {
      return "the candidate runtime went away during the call: " + u.message();
    }
    if (r instanceof InvokeResult.TimedOut t) {
      return "timed out: no answer within " + t.afterMillis() + " ms";
    }
    return "unexpected answer";
  }

  private Map<String, Object> header(String id, String topic, List<Map<String, Object>> mounts) {
    Map<String, Object> h = new java.util.LinkedHashMap<>();
    h.put("id", id);
    h.put("actor", o.actor());
    h.put("namespace", o.namespace());
    h.put("topic", topic);
    h.put("candidate", Map.of("handler", o.handler(), "dir", o.handlerDir().toString()));
    h.put("created_at", Instant.now().toString());
    h.put("concurrency", o.concurrency());
    h.put("timeout_ms", o.timeout().toMillis());
    if (o.limit() != Long.MAX_VALUE) {
      h.put("limit", o.limit());
    }
    // null: --no-state (or an actor without mounts); else where the candidate's state went
    h.put("state", mounts);
    return h;
  }

  static String reportId(String actor) {
    return actor
        + "-"
        + DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT)
            .withZone(ZoneOffset.UTC)
            .format(Instant.now())
        + "-"
        + UUID.randomUUID().toString().substring(0, 6);
  }

  private static Path scratchDir() {
    try {
      return Files.createTempDirectory(
          "taskmesh-eval-",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (IOException e) {
      throw new EvalFailure(3, "cannot make a scratch folder: " + e.getMessage());
    }
  }

  private static JsonNode tree(byte[] b) {
    try {
      return Json.MAPPER.readTree(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    return s.lines().findFirst().orElse("");
  }

  /**
   * The report file, written as the run goes: the header, each envelope when it is done, the
   * summary and the gate last. Written under a temporary name and moved into place at the end, so a
   * reader never sees half a report; owner-only permissions (it holds envelopes as the log does).
   */
  static final class Report implements AutoCloseable {
    private final Path file;
    private final Path part;
    private final JsonGenerator json;
    private boolean finished;

    Report(Path file, Map<String, Object> header) {
      this.file = file;
      this.part = file.resolveSibling(file.getFileName() + ".part");
      try {
        Path dir = file.getParent();
        if (!Files.isDirectory(dir)) {
          Files.createDirectories(
              dir,
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Files.deleteIfExists(part);
        Files.createFile(
            part,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        json = Json.MAPPER.getFactory().createGenerator(part.toFile(), JsonEncoding.UTF8);
        json.writeStartObject();
        for (Map.Entry<String, Object> e : header.entrySet()) {
          json.writeFieldName(e.getKey());
          Json.MAPPER.writeValue(json, e.getValue());
        }
        json.writeArrayFieldStart("envelopes");
      } catch (IOException e) {
        throw new EvalFailure(2, "cannot write the report " + file + ": " + e.getMessage());
      }
    }

    synchronized void envelope(ObjectNode entry) {
      try {
        Json.MAPPER.writeTree(json, entry);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    synchronized void finish(Summary summary, Gate gate, Gate.Verdict verdict) {
      try {
        json.writeEndArray();
        json.writeFieldName("summary");
        Json.MAPPER.writeValue(json, summary.toMap());
        if (gate != null) {
          json.writeObjectFieldStart("gate");
          json.writeStringField("expression", gate.text());
          json.writeBooleanField("failed", verdict.failed());
          json.writeFieldName("held");
          Json.MAPPER.writeValue(json, verdict.held());
          json.writeEndObject();
        }
        json.writeStringField("finished_at", Instant.now().toString());
        json.writeEndObject();
        json.close();
        Files.move(part, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        finished = true;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public synchronized void close() {
      if (!finished) {
        try {
          json.close();
          Files.deleteIfExists(part);
        } catch (IOException e) {
          // a half report is left as .part
        }
      }
    }
  }
}

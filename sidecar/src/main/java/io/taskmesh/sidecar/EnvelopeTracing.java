package io.taskmesh.sidecar;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.taskmesh.schemas.Envelope;
import io.taskmesh.servicekit.trace.TraceHeaders;
import io.taskmesh.servicekit.trace.Tracing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One span per envelope an actor handles (consume, runtime call, outputs), a child of the span
 * whose context the envelope carries. The envelope handed on (to the runtime, so the handler sees
 * it in {@code headers}, and from there into every output) carries this span's context instead, so
 * the next actor's span becomes its child.
 *
 * <p>With tracing off nothing is created and the envelope is handed on as received.
 */
final class EnvelopeTracing {
  static final AttributeKey<String> ACTOR = AttributeKey.stringKey("taskmesh.actor");
  static final AttributeKey<String> ENVELOPE_ID = AttributeKey.stringKey("taskmesh.envelope.id");
  static final AttributeKey<String> PARENT_ID = AttributeKey.stringKey("taskmesh.parent.id");
  static final AttributeKey<List<String>> OUTPUT_TOPICS =
      AttributeKey.stringArrayKey("taskmesh.output.topics");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("taskmesh.outcome");
  // OpenTelemetry's semantic names for an exception event
  static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
  static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");

  private EnvelopeTracing() {}

  /** Starts the span of {@code actor} handling {@code e}; close the result when done. */
  static Handling start(Envelope e, String actor) {
    Tracing tracing = Tracing.current();
    if (!tracing.recording()) {
      return new Handling(null, e);
    }
    Span span =
        tracing
            .tracer()
            .spanBuilder("process " + actor)
            .setParent(TraceHeaders.extract(tracing, e.headers()))
            .setSpanKind(SpanKind.CONSUMER)
            .setAttribute(ACTOR, actor)
            .setAttribute(ENVELOPE_ID, e.id())
            .startSpan();
    if (e.parentId() != null) {
      span.setAttribute(PARENT_ID, e.parentId());
    }
    Map<String, Object> headers = new LinkedHashMap<>(e.headers());
    TraceHeaders.inject(tracing, span, headers);
    return new Handling(
        span, new Envelope(e.id(), e.parentId(), e.route(), e.status(), e.payload(), headers));
  }

  /** An envelope being handled under its span (none when tracing is off). */
  static final class Handling implements AutoCloseable {
    private final Span span;
    private final Envelope envelope;

    private Handling(Span span, Envelope envelope) {
      this.span = span;
      this.envelope = envelope;
    }

    /** The envelope carrying this span's context: what the actor works on and hands on. */
    Envelope envelope() {
      return envelope;
    }

    /** Records where the outputs went and how handling ended; returns {@code outcome}. */
    Outcome ended(Outcome outcome) {
      if (span != null) {
        span.setAttribute(OUTCOME, outcome.kind().name().toLowerCase(Locale.ROOT));
        span.setAttribute(
            OUTPUT_TOPICS, outcome.outputs().stream().map(Outcome.Output::topic).toList());
        if (outcome.failure() != null) {
          Outcome.Failure f = outcome.failure();
          span.setStatus(StatusCode.ERROR, f.type());
          span.addEvent(
              "exception",
              Attributes.of(
                  EXCEPTION_TYPE, f.type(), EXCEPTION_MESSAGE, String.valueOf(f.message())));
        } else if (outcome.kind() != Outcome.Kind.DONE) {
          span.setStatus(StatusCode.ERROR, outcome.kind().name());
        }
      }
      return outcome;
    }

    @Override
    public void close() {
      if (span != null) {
        span.end();
      }
    }
  }
}

package io.taskmesh.servicekit.trace;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * W3C Trace Context in an envelope's {@code headers} object: reading the received context and
 * writing a span's. Header values are JSON values; only strings count.
 */
public final class TraceHeaders {
  public static final String TRACEPARENT = "traceparent";
  public static final String TRACESTATE = "tracestate";

  private static final TextMapGetter<Map<String, ?>> GETTER =
      new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, ?> carrier) {
          return carrier.keySet();
        }

        @Override
        public String get(Map<String, ?> carrier, String key) {
          Object v = carrier == null ? null : carrier.get(key);
          return v instanceof String s ? s : null;
        }
      };

  private static final TextMapSetter<Map<String, Object>> SETTER = Map::put;

  private TraceHeaders() {}

  /** The context the headers carry (the root context when they carry none or a malformed one). */
  public static Context extract(Tracing tracing, Map<String, ?> headers) {
    return tracing.propagator().extract(Context.root(), headers, GETTER);
  }

  /**
   * Writes the context of {@code span} into {@code headers}, replacing what they had. A span with
   * no valid context (the no-op tracer without a parent) writes nothing.
   */
  public static void inject(Tracing tracing, Span span, Map<String, Object> headers) {
    if (!span.getSpanContext().isValid()) {
      return;
    }
    headers.remove(TRACESTATE); // an empty tracestate is not written: drop the received one
    tracing.propagator().inject(Context.root().with(span), headers, SETTER);
  }

  /** The valid span context in the headers, or an invalid one. */
  public static SpanContext spanContext(Tracing tracing, Map<String, ?> headers) {
    return Span.fromContext(extract(tracing, headers)).getSpanContext();
  }

  /**
   * A new trace's {@code traceparent} (version 00, random ids, sampled): the start of a task whose
   * client sent none while no span is recorded.
   */
  public static String random() {
    ThreadLocalRandom r = ThreadLocalRandom.current();
    long hi;
    long lo;
    long span;
    do {
      hi = r.nextLong();
      lo = r.nextLong();
    } while (hi == 0 && lo == 0);
    do {
      span = r.nextLong();
    } while (span == 0);
    return String.format("00-%016x%016x-%016x-01", hi, lo, span);
  }
}

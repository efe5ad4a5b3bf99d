package io.taskmesh.gateway.launch;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.taskmesh.gateway.http.TraceContextFilter;
import io.taskmesh.servicekit.trace.TraceHeaders;
import io.taskmesh.servicekit.trace.Tracing;
import java.util.Map;

/**
 * The gateway's span of a task it starts: a child of the client's span when the request carried a
 * {@code traceparent} ({@link TraceContextFilter}), else the root of a new trace. Its context is
 * stamped into the envelope's headers, where the first actor's sidecar continues it.
 *
 * <p>With tracing off no span is recorded: the envelope carries the client's {@code
 * traceparent}/{@code tracestate} as received, or a new random {@code traceparent}, so the task's
 * trace id crosses every actor either way.
 */
final class TaskTracing implements AutoCloseable {
  static final AttributeKey<String> TASK_ID = AttributeKey.stringKey("taskmesh.task.id");
  static final AttributeKey<String> FLOW = AttributeKey.stringKey("taskmesh.flow");

  private final Span span;

  private TaskTracing(Span span) {
    this.span = span;
  }

  /**
   * Starts the span of launching task {@code taskId} of {@code flow} and writes its context into
   * {@code headers}; close it once the envelope is dispatched.
   */
  static TaskTracing launch(String taskId, String flow, Map<String, Object> headers) {
    Tracing tracing = Tracing.current();
    Span span =
        tracing
            .tracer()
            .spanBuilder("start " + flow)
            .setParent(Context.current())
            .setSpanKind(SpanKind.PRODUCER)
            .setAttribute(TASK_ID, taskId)
            .setAttribute(FLOW, flow)
            .startSpan();
    if (span.getSpanContext().isValid()) {
      TraceHeaders.inject(tracing, span, headers);
    } else {
      headers.put(TraceHeaders.TRACEPARENT, TraceHeaders.random());
    }
    return new TaskTracing(span);
  }

  @Override
  public void close() {
    span.end();
  }
}

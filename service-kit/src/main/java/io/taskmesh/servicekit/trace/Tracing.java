package io.taskmesh.servicekit.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.TracerProvider;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The process's tracer and the W3C Trace Context propagator.
 *
 * <p>Off by default: the tracer is OpenTelemetry's no-op one, which creates no span and keeps the
 * incoming {@code traceparent} as it is, so a task's trace id still crosses every actor (the
 * headers are propagated, nothing is recorded). With {@code OTEL_EXPORTER_OTLP_ENDPOINT} set, spans
 * are recorded by the SDK and sent in batches over OTLP/HTTP (protobuf) to {@code
 * <endpoint>/v1/traces}; each service's span then becomes the parent of the next one's.
 *
 * <p>One instance per process ({@link #current()}), read lazily from the environment, because the
 * call sites sit in hot paths that other code owns and must stay one line; {@link #use} replaces it
 * (tests, an embedding program).
 */
public final class Tracing implements AutoCloseable {
  public static final String ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT";
  public static final String SERVICE_NAME_ENV = "OTEL_SERVICE_NAME";
  static final String DEFAULT_SERVICE_NAME = "taskmesh";
  private static final String INSTRUMENTATION = "io.taskmesh";

  private static volatile Tracing current;

  private final TracerProvider provider;
  private final SdkTracerProvider sdk;
  private final Tracer tracer;

  private Tracing(TracerProvider provider, SdkTracerProvider sdk) {
    this.provider = provider;
    this.sdk = sdk;
    this.tracer = provider.get(INSTRUMENTATION);
  }

  /** The process's tracing, built from the environment on first use. */
  public static Tracing current() {
    Tracing t = current;
    if (t == null) {
      synchronized (Tracing.class) {
        if (current == null) {
          current = fromEnv(System.getenv());
          if (current.recording()) {
            Runtime.getRuntime()
                .addShutdownHook(new Thread(current::close, "taskmesh-tracing-flush"));
          }
        }
        t = current;
      }
    }
    return t;
  }

  /** Replaces the process's tracing; the previous one is closed (its spans flushed). */
  public static synchronized void use(Tracing tracing) {
    Tracing old = current;
    current = tracing;
    if (old != null && old != tracing) {
      old.close();
    }
  }

  /** OTLP export when {@value #ENDPOINT_ENV} is set and not blank, else {@link #off()}. */
  public static Tracing fromEnv(Map<String, String> env) {
    String endpoint = env.getOrDefault(ENDPOINT_ENV, "").trim();
    if (endpoint.isEmpty()) {
      return off();
    }
    String service = env.getOrDefault(SERVICE_NAME_ENV, "").trim();
    return exportingTo(
        OtlpHttpSpanExporter.builder()
            .setEndpoint(tracesUrl(endpoint))
            .setTimeout(Duration.ofSeconds(10))
            .build(),
        service.isEmpty() ? DEFAULT_SERVICE_NAME : service,
        true);
  }

  /** Propagation only: no span recorded, the received trace context passed on unchanged. */
  public static Tracing off() {
    return new Tracing(TracerProvider.noop(), null);
  }

  /**
   * Spans recorded and handed to {@code exporter}: in batches when {@code batched} (OTLP), else
   * each as it ends (an in-memory exporter in a test).
   */
  public static Tracing exportingTo(SpanExporter exporter, String serviceName, boolean batched) {
    SpanProcessor processor =
        batched
            ? BatchSpanProcessor.builder(exporter).build()
            : SimpleSpanProcessor.create(exporter);
    SdkTracerProvider sdk =
        SdkTracerProvider.builder()
            .setResource(
                Resource.getDefault()
                    .merge(
                        Resource.create(
                            Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
            .addSpanProcessor(processor)
            .build();
    return new Tracing(sdk, sdk);
  }

  /**
   * The OTLP/HTTP traces URL for a base endpoint, as the OpenTelemetry exporter spec derives it.
   */
  static String tracesUrl(String endpoint) {
    return endpoint.endsWith("/") ? endpoint + "v1/traces" : endpoint + "/v1/traces";
  }

  public Tracer tracer() {
    return tracer;
  }

  /** W3C {@code traceparent}/{@code tracestate}, the only format the envelope carries. */
  public TextMapPropagator propagator() {
    return W3CTraceContextPropagator.getInstance();
  }

  /** Whether spans are recorded (an exporter is configured). */
  public boolean recording() {
    return sdk != null;
  }

  /** Sends what is buffered (tests, shutdown). */
  public void flush() {
    if (sdk != null) {
      sdk.forceFlush().join(10, TimeUnit.SECONDS);
    }
  }

  @Override
  public void close() {
    if (sdk != null) {
      sdk.shutdown().join(10, TimeUnit.SECONDS);
    }
  }

  TracerProvider provider() {
    return provider;
  }
}

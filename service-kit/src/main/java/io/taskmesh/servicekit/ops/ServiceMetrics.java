package io.taskmesh.servicekit.ops;

import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * The process's one Prometheus registry. One per JVM, not one per service object: in {@code
 * ./taskmesh dev} the gateway, mesh-api, every sidecar and the kv-connector share a JVM, and the
 * gateway's {@code /metrics} then shows all of them (each meter carries the tags that tell them
 * apart, such as {@code actor}). The JVM meters are bound once, here.
 */
public final class ServiceMetrics {
  /** Prometheus text format 0.0.4: what a scraper gets unless it asks for something else. */
  public static final String TEXT = "text/plain; version=0.0.4; charset=utf-8";

  public static final String OPENMETRICS =
      "application/openmetrics-text; version=1.0.0; charset=utf-8";

  public static final String PROTOBUF =
      "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; encoding=delimited";

  private static final PrometheusMeterRegistry REGISTRY = create();

  private ServiceMetrics() {}

  public static PrometheusMeterRegistry registry() {
    return REGISTRY;
  }

  /** One exposition: its content type and bytes. */
  // bytes carried from one side to the other, never compared or used as a key
  @SuppressWarnings("ArrayRecordComponent")
  public record Scrape(String contentType, byte[] body) {}

  /**
   * The registry in the format the {@code Accept} header prefers among the three Prometheus formats
   * (protobuf, OpenMetrics, text); text when the header is absent or names none of them.
   */
  public static Scrape scrape(String accept) {
    String type = contentTypeFor(accept);
    ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
    try {
      REGISTRY.scrape(out, type);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Scrape(type, out.toByteArray());
  }

  static String contentTypeFor(String accept) {
    String a = accept == null ? "" : accept.toLowerCase(Locale.ROOT);
    if (a.contains("application/vnd.google.protobuf")) {
      return PROTOBUF;
    }
    if (a.contains("application/openmetrics-text")) {
      return OPENMETRICS;
    }
    return TEXT;
  }

  private static PrometheusMeterRegistry create() {
    PrometheusMeterRegistry r = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new ClassLoaderMetrics().bindTo(r);
    new JvmMemoryMetrics().bindTo(r);
    // lives as long as the process, like the registry: never closed
    new JvmGcMetrics().bindTo(r);
    new JvmThreadMetrics().bindTo(r);
    new ProcessorMetrics().bindTo(r);
    new UptimeMetrics().bindTo(r);
    new FileDescriptorMetrics().bindTo(r);
    return r;
  }
}

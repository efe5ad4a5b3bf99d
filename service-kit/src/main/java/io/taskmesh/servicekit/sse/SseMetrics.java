package io.taskmesh.servicekit.sse;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.taskmesh.servicekit.ops.ServiceMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * SSE meters of every endpoint of the process: clients connected per endpoint name ({@code
 * taskmesh_sse_clients}) and droppable (FLY) frames dropped for slow clients. Kept per name, not
 * per {@link SseWriters}, so two endpoints of the same name (replicas in one test JVM) add up
 * instead of the second gauge being ignored.
 */
final class SseMetrics {
  private static final Map<String, AtomicInteger> CLIENTS = new ConcurrentHashMap<>();
  private static final Counter FLY_DROPPED =
      Counter.builder("taskmesh.sse.fly.events.dropped")
          .description("FLY (droppable) SSE events dropped because the client was too slow")
          .register(ServiceMetrics.registry());

  private SseMetrics() {}

  static AtomicInteger clients(String endpoint) {
    return CLIENTS.computeIfAbsent(
        endpoint,
        name -> {
          AtomicInteger n = new AtomicInteger();
          Gauge.builder("taskmesh.sse.clients", n, AtomicInteger::get)
              .description("SSE clients connected")
              .tag("endpoint", name)
              .register(ServiceMetrics.registry());
          return n;
        });
  }

  static void flyDropped() {
    FLY_DROPPED.increment();
  }
}

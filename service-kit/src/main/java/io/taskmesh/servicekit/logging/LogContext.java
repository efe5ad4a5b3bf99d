package io.taskmesh.servicekit.logging;

import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.MDC;

/**
 * The MDC keys every service sets where it knows them, so a JSON log line can be joined to its task
 * and trace: {@value #TASK_ID}, {@value #ACTOR}, {@value #TRACE_ID}. Through slf4j's MDC, so it
 * needs no logging backend (with one that has no MDC the calls do nothing).
 */
public final class LogContext {
  public static final String TASK_ID = "task_id";
  public static final String ACTOR = "actor";
  public static final String TRACE_ID = "trace_id";

  private static final Pattern TRACE_ID_HEX = Pattern.compile("[0-9a-f]{32}");

  private LogContext() {}

  /** The keys set on this thread until {@link #close}. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /** Sets the keys (a null value: key not set) until the scope is closed. */
  public static Scope open(String taskId, String actor, String traceparent) {
    put(TASK_ID, taskId);
    put(ACTOR, actor);
    put(TRACE_ID, traceId(traceparent));
    return () -> {
      MDC.remove(TASK_ID);
      MDC.remove(ACTOR);
      MDC.remove(TRACE_ID);
    };
  }

  /** Runs {@code body} with the keys set, then removes them. */
  // the resource is a scope: it does its work when it closes, the body never names it
  @SuppressWarnings("try")
  public static <T> T with(String taskId, String actor, String traceparent, Supplier<T> body) {
    try (Scope s = open(taskId, actor, traceparent)) {
      return body.get();
    }
  }

  /**
   * Replaces the trace id of the scope open on this thread (a service that learns the trace only
   * after opening it, e.g. from a message it has just parsed); a null or malformed value leaves it.
   */
  public static void trace(String traceparent) {
    put(TRACE_ID, traceId(traceparent));
  }

  /**
   * The trace id of a W3C {@code traceparent} ({@code 00-<32 hex>-<16 hex>-<2 hex>}); null when
   * absent or malformed.
   */
  public static String traceId(String traceparent) {
    if (traceparent == null) {
      return null;
    }
    String[] parts = traceparent.trim().split("-");
    if (parts.length < 4 || !TRACE_ID_HEX.matcher(parts[1]).matches()) {
      return null;
    }
    return parts[1];
  }

  private static void put(String key, String value) {
    if (value != null) {
      MDC.put(key, value);
    }
  }
}

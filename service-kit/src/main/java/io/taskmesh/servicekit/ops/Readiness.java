package io.taskmesh.servicekit.ops;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A service's readiness: named checks, each answering null (fine) or what is wrong. Beside the
 * spec's {@code /health} (the process lives), {@code /ready} says whether it can do its work now,
 * so an orchestrator sends traffic only to replicas that can serve it. A service that is stopping
 * reports {@code draining} so it leaves the load balancer before it closes its connections.
 */
public final class Readiness implements AutoCloseable {
  /** One check; null when fine, otherwise a short text saying what is wrong. */
  @FunctionalInterface
  public interface Check {
    String problem() throws Exception;
  }

  /** The checks' results in order; {@code problems} maps every check to null or its problem. */
  public record Answer(boolean ready, Map<String, String> problems) {
    public int httpStatus() {
      return ready ? 200 : 503;
    }

    /** {@code {"status":"ready"|"not_ready","checks":{"kafka":{"ok":true},...}}}. */
    public String json() {
      StringBuilder b = new StringBuilder("{\"status\":\"");
      b.append(ready ? "ready" : "not_ready").append("\",\"checks\":{");
      boolean first = true;
      for (Map.Entry<String, String> e : problems.entrySet()) {
        if (!first) {
          b.append(',');
        }
        first = false;
        b.append(quote(e.getKey())).append(":{\"ok\":").append(e.getValue() == null);
        if (e.getValue() != null) {
          b.append(",\"problem\":").append(quote(e.getValue()));
        }
        b.append('}');
      }
      return b.append("}}").toString();
    }
  }

  private final Map<String, Check> checks = new LinkedHashMap<>();
  private volatile boolean draining;

  public synchronized Readiness add(String name, Check check) {
    checks.put(name, check);
    return this;
  }

  /** From now on the answer is not ready ({@code draining}): called first thing on SIGTERM. */
  public void drain() {
    draining = true;
  }

  public boolean draining() {
    return draining;
  }

  /** Runs every check; a check that throws counts as failed with the exception as its problem. */
  public Answer check() {
    Map<String, Check> copy;
    synchronized (this) {
      copy = new LinkedHashMap<>(checks);
    }
    Map<String, String> problems = new LinkedHashMap<>();
    if (draining) {
      problems.put("draining", "the service is stopping");
    }
    for (Map.Entry<String, Check> e : copy.entrySet()) {
      String problem;
      try {
        problem = e.getValue().problem();
      } catch (Exception failed) {
        problem = failed.getMessage() != null ? failed.getMessage() : failed.toString();
      }
      problems.put(e.getKey(), problem);
    }
    return new Answer(problems.values().stream().allMatch(p -> p == null), problems);
  }

  /** Closes the checks that hold a client (such as {@link KafkaProbe}). */
  @Override
  public synchronized void close() {
    for (Check c : checks.values()) {
      if (c instanceof AutoCloseable closeable) {
        try {
          closeable.close();
        } catch (Exception ignored) {
          // stopping anyway
        }
      }
    }
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}

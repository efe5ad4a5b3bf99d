package io.taskmesh.servicekit.ops;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A service's readiness: named checks, each answering null (fine) or what is wrong. Beside the
 * spec's {@code /health} (the process lives), {@code /ready} says whether it can do its work now,
 * so an orchestrator sends traffic only to replicas that can serve it. A service that is stopping
 * reports {@code draining} so it leaves the load balancer before it closes its connections.
 *
 * <p>Every check is bounded ({@link #CHECK_BOUND}, 2 s): the checks run at the same time on a small
 * pool of daemon threads, and one that has not answered within the bound is reported as not ready,
 * named, whatever its dependency does (a frozen database, a broker that accepts and never answers).
 * A check still running from an earlier request is waited on again, not started a second time, so a
 * dependency that hangs holds at most one thread per check.
 */
public final class Readiness implements AutoCloseable {
  /** How long one check may take before it counts as failed (the docs' "each check 2 s"). */
  public static final Duration CHECK_BOUND = Duration.ofSeconds(2);

  private static final ExecutorService CHECKS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "readiness-check");
            t.setDaemon(true);
            return t;
          });

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
  private final Map<String, CompletableFuture<String>> running = new ConcurrentHashMap<>();
  private final Duration bound;
  private volatile boolean draining;

  public Readiness() {
    this(CHECK_BOUND);
  }

  /** Checks bounded by {@code bound} each (tests use a shorter one). */
  public Readiness(Duration bound) {
    this.bound = bound;
  }

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

  /**
   * Runs every check at once and waits at most the bound for them; a check that throws counts as
   * failed with the exception as its problem, one that has not answered as {@code did not answer
   * within 2 s}.
   */
  public Answer check() {
    Map<String, Check> copy;
    synchronized (this) {
      copy = new LinkedHashMap<>(checks);
    }
    Map<String, CompletableFuture<String>> answers = new LinkedHashMap<>();
    copy.forEach(
        (name, check) ->
            answers.put(
                name,
                running.compute(
                    name,
                    (n, inFlight) ->
                        inFlight != null && !inFlight.isDone()
                            ? inFlight
                            : CompletableFuture.supplyAsync(() -> run(check), CHECKS))));
    long deadline = System.nanoTime() + bound.toNanos();
    Map<String, String> problems = new LinkedHashMap<>();
    if (draining) {
      problems.put("draining", "the service is stopping");
    }
    for (Map.Entry<String, CompletableFuture<String>> e : answers.entrySet()) {
      String problem;
      try {
        problem = e.getValue().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException slow) {
        problem = "did not answer within " + seconds(bound);
      } catch (ExecutionException failed) {
        problem = describe(failed.getCause());
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        problem = "interrupted while checking";
      }
      problems.put(e.getKey(), problem);
    }
    return new Answer(problems.values().stream().allMatch(p -> p == null), problems);
  }

  private static String run(Check check) {
    try {
      return check.problem();
    } catch (Exception failed) {
      return describe(failed);
    }
  }

  private static String describe(Throwable failed) {
    return failed.getMessage() != null ? failed.getMessage() : failed.toString();
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
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

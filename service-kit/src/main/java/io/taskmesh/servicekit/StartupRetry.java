package io.taskmesh.servicekit;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A start-up connection (Postgres, the Kafka admin client) retried with exponential backoff (250 ms
 * doubling to at most 5 s) until it works or {@code SVC_STARTUP_RETRY_TIMEOUT} (default {@code
 * 60s}) has passed: a dependency that starts beside the service, or restarts, is waited for instead
 * of failing the start. Each retry is one log line; giving up is one exception whose message names
 * the dependency, the last problem and the variable to raise.
 */
public final class StartupRetry {
  /** How long a service keeps retrying its start-up connections. */
  public static final String VAR = "SVC_STARTUP_RETRY_TIMEOUT";

  public static final String DEFAULT = "60s";

  private static final Logger LOG = LoggerFactory.getLogger(StartupRetry.class);
  private static final long FIRST_DELAY_MS = 250;
  private static final long MAX_DELAY_MS = 5_000;

  /** One attempt: returns the connected thing, or throws why it could not. */
  @FunctionalInterface
  public interface Attempt<T> {
    T call() throws Exception;
  }

  /** The start-up connection did not work within the limit (or failed in a way not retried). */
  public static final class GaveUp extends RuntimeException {
    GaveUp(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final String what;
  private final Duration limit;
  private final Predicate<Exception> retriable;
  private final AtomicInteger attempts = new AtomicInteger();

  /**
   * @param what the dependency, as the log names it ("Postgres", "Kafka")
   * @param limit how long to keep retrying (from {@link #limit(Env)})
   * @param retriable which failures are worth a retry (a wrong password is not)
   */
  public StartupRetry(String what, Duration limit, Predicate<Exception> retriable) {
    this.what = what;
    this.limit = limit;
    this.retriable = retriable;
  }

  /**
   * The start-up retry of a Postgres connection: connection-level failures are retried ({@code 08}
   * connection exceptions, {@code 57P03} "the database system is starting up", a pool timeout with
   * no state); a refused login ({@code 28}), an unknown database ({@code 3D}) or an SQL error of
   * the schema itself ({@code 42}) are not.
   */
  public static StartupRetry postgres(String what, Duration limit) {
    return new StartupRetry(what, limit, StartupRetry::postgresNotUpYet);
  }

  static boolean postgresNotUpYet(Exception e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("28") || state.startsWith("3D") || state.startsWith("42")) {
          return false;
        }
      }
    }
    return e instanceof SQLException;
  }

  /** {@code SVC_STARTUP_RETRY_TIMEOUT} ({@link Durations} syntax), default {@code 60s}. */
  public static Duration limit(Env env) {
    Duration d = env.duration(VAR, DEFAULT);
    if (d.isNegative()) {
      throw new ConfigException(VAR, "must not be negative");
    }
    return d;
  }

  /** Attempts made so far (tests wait on it). */
  public int attempts() {
    return attempts.get();
  }

  private static String problem(Exception e) {
    String m = e.getMessage();
    return m == null || m.isBlank() ? "no answer" : m.strip().replaceAll("\\s+", " ");
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  /** Runs {@code attempt} until it works, the limit passes, or it fails in a way not retried. */
  public <T> T run(Attempt<T> attempt) throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    long delay = FIRST_DELAY_MS;
    while (true) {
      int n = attempts.incrementAndGet();
      try {
        return attempt.call();
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        String problem = problem(e);
        if (!retriable.test(e)) {
          throw new GaveUp(what + ": " + problem, e);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new GaveUp(
              what
                  + " still unreachable after "
                  + seconds(limit)
                  + " ("
                  + n
                  + " attempts; last: "
                  + problem
                  + "); set "
                  + VAR
                  + " to wait longer",
              e);
        }
        long wait = Math.min(delay, Math.max(1, left / 1_000_000));
        LOG.warn(
            "{} not reachable yet ({}); retry {} in {} ms (gives up after {}, {})",
            what,
            problem,
            n,
            wait,
            seconds(limit),
            VAR);
        Thread.sleep(wait);
        delay = Math.min(delay * 2, MAX_DELAY_MS);
      }
    }
  }
}

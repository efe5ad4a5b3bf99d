package io.taskmesh.gateway.fly;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.servicekit.Threads;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FLY across gateway processes over Postgres NOTIFY (spec, "FLY delivery"): channel {@code fly},
 * payload {@code <task_id>:<json>}, at most 8000 bytes. One dedicated listening connection per
 * process that serves FLY to clients, reconnecting after 1 s; nothing is ever written to a table. A
 * mesh-only replica only publishes: it serves no stream with FLY, so listening would only make it
 * parse (and Postgres send it) every event of every replica for nobody.
 *
 * <p>Publishing is queued: a POST returns once its event is queued, and one publisher thread sends
 * whatever waits as one statement (one round trip, one transaction) instead of a round trip and a
 * commit per event, which is what FLY's rate cost (docs/bench/gateway-http.md, FlyBench). The queue
 * holds {@link #MAX_WAITING} events, half the spec's client buffer: past it a POST waits (a sidecar
 * streaming faster than the database takes it is slowed down, not turned into a burst that a
 * client's 100-event buffer would drop). A batch that fails goes to this process's subscribers
 * (in-process, as with the database down), never twice. One thread keeps the order of posting.
 * Postgres folds identical payloads sent in one transaction into one notification, so a batch never
 * holds the same payload twice (a repeated token stays two events).
 */
public final class PgFlyChannel implements AutoCloseable {
  /** The namespace {@code default}'s channel, as before namespaces: a rolling upgrade keeps FLY. */
  public static final String CHANNEL = "fly";

  static final int MAX_PAYLOAD_BYTES = 8000;
  private static final Logger LOG = LoggerFactory.getLogger(PgFlyChannel.class);
  private static final long RECONNECT_BACKOFF_MS = 1000;

  /** Events waiting for the publisher (and per statement at most): half the client buffer. */
  static final int MAX_WAITING = 50;

  /** How long a POST waits for room in the queue before it delivers in-process (database slow). */
  private static final long QUEUE_WAIT_MS = 1000;

  /** How long one batch may take in the database before it counts as failed. */
  private static final int SEND_TIMEOUT_SECONDS = 2;

  private static final String NOTIFY_EACH = "SELECT pg_notify(?, p) FROM unnest(?::text[]) AS p";

  /**
   * {@code fly} for the namespace {@code default}, {@code fly.<ns>} for any other: two deployments
   * that share a database do not receive each other's FLY events. A namespace is letters, digits,
   * '.', '_' and '-' (at most 40), so the quoted identifier needs no escaping and fits Postgres's
   * 63 bytes.
   */
  static String channelFor(String namespace) {
    return namespace == null || io.taskmesh.schemas.Topics.DEFAULT_NAMESPACE.equals(namespace)
        ? CHANNEL
        : CHANNEL + "." + namespace;
  }

  private final String channel;

  private final String jdbcUrl;
  private final HikariDataSource publishers;
  private final BiConsumer<String, String> deliver;
  private final Thread listener; // null when publishing only
  private final Thread publisher;
  private final BlockingQueue<Outgoing> waiting = new ArrayBlockingQueue<>(MAX_WAITING);
  private volatile boolean running = true;
  private volatile boolean listening;
  private volatile boolean lastSendOk = true;

  /**
   * @param deliver receives (task id, FLY JSON) for every notification, this process's included,
   *     and the events of a batch that could not be sent
   * @param listen false for a replica that only publishes (no LISTEN connection)
   */
  PgFlyChannel(String jdbcUrl, BiConsumer<String, String> deliver, boolean listen) {
    this(jdbcUrl, deliver, listen, CHANNEL);
  }

  /**
   * @param channel the NOTIFY channel ({@link #channelFor})
   */
  PgFlyChannel(String jdbcUrl, BiConsumer<String, String> deliver, boolean listen, String channel) {
    this.channel = channel;
    this.jdbcUrl = jdbcUrl;
    this.deliver = deliver;
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(jdbcUrl);
    hc.setMaximumPoolSize(1); // one publisher thread
    hc.setMinimumIdle(0);
    hc.setConnectionTimeout(1000); // a database that is down must not hold a FLY request for long
    hc.setInitializationFailTimeout(-1);
    hc.setPoolName("fly-publish");
    this.publishers = new HikariDataSource(hc);
    this.listener = listen ? Threads.newDaemon("fly-listener", this::listen) : null;
    if (listener != null) {
      listener.start();
    }
    this.publisher = Threads.newDaemon("fly-publisher", this::publishLoop);
    this.publisher.start();
  }

  /** One event on its way out: the task id and JSON for the in-process fallback. */
  private record Outgoing(String taskId, String json, String payload) {}

  /**
   * Queues an event for the publisher; false when the payload is too large, the database is
   * unavailable, or the queue stayed full for {@link #QUEUE_WAIT_MS}, so the caller delivers
   * in-process instead.
   */
  boolean publish(String taskId, String json) {
    String payload = taskId + ":" + json;
    // a listening replica that lost its connection delivers in-process: a NOTIFY would not reach
    // its own clients
    if (payload.getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES
        || (listener != null && !listening)
        || !running) {
      return false;
    }
    try {
      return waiting.offer(
          new Outgoing(taskId, json, payload), QUEUE_WAIT_MS, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false; // not queued: the caller delivers it in-process
    }
  }

  private void publishLoop() {
    List<Outgoing> batch = new ArrayList<>();
    Set<String> payloads = new HashSet<>();
    while (running) {
      try {
        Outgoing first = waiting.take();
        batch.add(first);
        payloads.add(first.payload());
        // the only consumer, so what peek() shows is what poll() takes
        for (Outgoing next = waiting.peek();
            next != null && batch.size() < MAX_WAITING && payloads.add(next.payload());
            next = waiting.peek()) {
          batch.add(waiting.poll());
        }
        if (!send(batch)) {
          batch.forEach(o -> deliver.accept(o.taskId(), o.json()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        batch.clear();
        payloads.clear();
      }
    }
  }

  private boolean send(List<Outgoing> batch) {
    try (Connection c = publishers.getConnection();
        PreparedStatement ps = c.prepareStatement(NOTIFY_EACH)) {
      ps.setQueryTimeout(SEND_TIMEOUT_SECONDS);
      ps.setString(1, channel);
      ps.setArray(2, c.createArrayOf("text", batch.stream().map(Outgoing::payload).toArray()));
      ps.execute();
      lastSendOk = true;
      return true;
    } catch (SQLException | RuntimeException e) {
      lastSendOk = false;
      LOG.warn(
          "FLY notify failed, delivering {} event(s) in-process only: {}",
          batch.size(),
          e.getMessage());
      return false;
    }
  }

  /** Whether this process hears its own NOTIFY back (it listens on the channel). */
  boolean hearsItself() {
    return listener != null;
  }

  /**
   * True while a publish reaches the other processes: the listening connection is up (a publish
   * reaches this process too), or, publishing only, the last batch was sent.
   */
  boolean reachesOthers() {
    return listener != null ? listening : lastSendOk;
  }

  private void listen() {
    while (running) {
      try (Connection c = DriverManager.getConnection(jdbcUrl)) {
        try (Statement s = c.createStatement()) {
          // quoted: pg_notify names the channel exactly, an unquoted LISTEN would lower-case it
          s.execute("LISTEN \"" + channel + "\"");
        }
        PGConnection pg = c.unwrap(PGConnection.class);
        listening = true;
        while (running) {
          PGNotification[] batch = pg.getNotifications(500);
          if (batch == null) {
            continue;
          }
          for (PGNotification n : batch) {
            int colon = n.getParameter().indexOf(':');
            if (colon > 0) {
              deliver.accept(
                  n.getParameter().substring(0, colon), n.getParameter().substring(colon + 1));
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        if (running) {
          LOG.warn("FLY listener lost its connection ({}); reconnecting in 1 s", e.getMessage());
        }
      } finally {
        listening = false;
      }
      sleepQuietly(RECONNECT_BACKOFF_MS);
    }
  }

  private void sleepQuietly(long ms) {
    try {
      Thread.sleep(ms); // the spec's fixed reconnect backoff
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      running = false;
    }
  }

  @Override
  public void close() {
    running = false;
    if (listener != null) {
      listener.interrupt();
    }
    publisher.interrupt();
    publishers.close();
  }
}

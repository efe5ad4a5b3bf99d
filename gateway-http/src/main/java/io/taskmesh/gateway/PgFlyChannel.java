package io.taskmesh.gateway;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.servicekit.Threads;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.BiConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * FLY across gateway processes over Postgres NOTIFY (spec, "FLY delivery"): channel {@code fly},
 * payload {@code <task_id>:<json>}, at most 8000 bytes. One dedicated listening connection per
 * process, reconnecting after 1 s; nothing is ever written to a table.
 */
final class PgFlyChannel implements AutoCloseable {
  static final String CHANNEL = "fly";
  static final int MAX_PAYLOAD_BYTES = 8000;
  private static final Logger LOG = LoggerFactory.getLogger(PgFlyChannel.class);
  private static final long RECONNECT_BACKOFF_MS = 1000;

  private final String jdbcUrl;
  private final HikariDataSource publishers;
  private final BiConsumer<String, String> deliver;
  private final Thread listener;
  private volatile boolean running = true;
  private volatile boolean listening;

  /**
   * @param deliver receives (task id, FLY JSON) for every notification, this process's included
   */
  PgFlyChannel(String jdbcUrl, BiConsumer<String, String> deliver) {
    this.jdbcUrl = jdbcUrl;
    this.deliver = deliver;
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(jdbcUrl);
    hc.setMaximumPoolSize(4);
    hc.setMinimumIdle(0);
    hc.setConnectionTimeout(1000); // a database that is down must not hold a FLY request for long
    hc.setInitializationFailTimeout(-1);
    hc.setPoolName("fly-publish");
    this.publishers = new HikariDataSource(hc);
    this.listener = Threads.newDaemon("fly-listener", this::listen);
    this.listener.start();
  }

  /**
   * Publishes; false when the payload is too large or the database is unavailable, so the caller
   * delivers in-process instead.
   */
  boolean publish(String taskId, String json) {
    String payload = taskId + ":" + json;
    if (payload.getBytes(StandardCharsets.UTF_8).length > MAX_PAYLOAD_BYTES || !listening) {
      return false;
    }
    try (Connection c = publishers.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, CHANNEL);
      ps.setString(2, payload);
      ps.execute();
      return true;
    } catch (SQLException e) {
      LOG.warn("FLY notify failed, delivering in-process only: {}", e.getMessage());
      return false;
    }
  }

  /** True while the listening connection is up (a publish would reach this process too). */
  boolean listening() {
    return listening;
  }

  private void listen() {
    while (running) {
      try (Connection c = DriverManager.getConnection(jdbcUrl)) {
        try (Statement s = c.createStatement()) {
          s.execute("LISTEN " + CHANNEL);
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
    listener.interrupt();
    publishers.close();
  }
}

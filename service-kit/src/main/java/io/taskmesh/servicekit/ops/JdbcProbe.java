package io.taskmesh.servicekit.ops;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * The readiness check "database reachable": opens a connection and asks it to validate itself
 * within a bounded time. The problem text never repeats the URL (it may carry a password).
 */
public final class JdbcProbe implements Readiness.Check {
  private interface Connector {
    Connection open(int timeoutSeconds) throws SQLException;
  }

  private final Connector connector;
  private final int timeoutSeconds;

  /** A new connection to {@code jdbcUrl} each time. */
  public JdbcProbe(String jdbcUrl, Duration timeout) {
    this(
        seconds -> {
          DriverManager.setLoginTimeout(seconds);
          return DriverManager.getConnection(jdbcUrl);
        },
        timeout);
  }

  /** A connection of {@code pool} (a pooled one when the pool has it). */
  public JdbcProbe(DataSource pool, Duration timeout) {
    this(seconds -> pool.getConnection(), timeout);
  }

  private JdbcProbe(Connector connector, Duration timeout) {
    this.connector = connector;
    this.timeoutSeconds = (int) Math.max(1, timeout.toSeconds());
  }

  @Override
  public String problem() {
    try (Connection c = connector.open(timeoutSeconds)) {
      return c.isValid(timeoutSeconds) ? null : "the database did not validate the connection";
    } catch (SQLException e) {
      return "database unreachable (SQLState " + e.getSQLState() + ")";
    }
  }
}

package io.taskmesh.servicekit.ops;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
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
          // the driver's own bounds too, so a probe left behind by Readiness's bound (a frozen
          // server accepts TCP and never answers) ends by itself instead of holding its thread
          Properties bounds = new Properties();
          bounds.setProperty("loginTimeout", String.valueOf(seconds));
          bounds.setProperty("connectTimeout", String.valueOf(seconds));
          bounds.setProperty("socketTimeout", String.valueOf(seconds + 1));
          return DriverManager.getConnection(jdbcUrl, bounds);
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

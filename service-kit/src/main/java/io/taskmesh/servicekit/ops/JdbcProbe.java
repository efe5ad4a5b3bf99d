package io.taskmesh.servicekit.ops;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The readiness check "database reachable": opens a connection and asks it to validate itself
 * within a bounded time. The problem text never repeats the URL (it may carry a password).
 */
public final class JdbcProbe implements Readiness.Check {
  private final String jdbcUrl;
  private final int timeoutSeconds;

  public JdbcProbe(String jdbcUrl, Duration timeout) {
    this.jdbcUrl = jdbcUrl;
    this.timeoutSeconds = (int) Math.max(1, timeout.toSeconds());
  }

  @Override
  public String problem() {
    DriverManager.setLoginTimeout(timeoutSeconds);
    try (Connection c = DriverManager.getConnection(jdbcUrl)) {
      return c.isValid(timeoutSeconds) ? null : "the database did not validate the connection";
    } catch (SQLException e) {
      return "database unreachable (SQLState " + e.getSQLState() + ")";
    }
  }
}

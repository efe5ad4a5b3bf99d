package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.taskmesh.servicekit.ApiException;
import io.vertx.pgclient.PgException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from errors to answers ({@code {error, message}} bodies): domain errors, pgjdbc's
 * {@link SQLException}s and the reactive client's {@link PgException}s by SQLSTATE class.
 */
record ErrorAnswer(int status, String body, boolean retryAfter) {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorAnswer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static ErrorAnswer of(Throwable e, String method, String path) {
    if (e instanceof ApiException k) {
      if (k.status() == 503) {
        LOG.warn("503 on {} {}: {}", method, path, k.getMessage());
      }
      return new ErrorAnswer(k.status(), json(k.error(), k.getMessage()), k.status() == 503);
    }
    if (e instanceof PgException pg && pg.getSqlState() != null) {
      if (unavailableState(pg.getSqlState())) {
        return unavailable(method, path, pg.getErrorMessage());
      }
      if (pg.getSqlState().startsWith("22")) {
        return rejected(pg.getErrorMessage());
      }
    }
    if (e instanceof SQLException sql) {
      if (isUnavailable(sql)) {
        return unavailable(method, path, sql.getMessage());
      }
      if (sql.getSQLState() != null && sql.getSQLState().startsWith("22")) {
        return rejected(sql.getMessage());
      }
    }
    LOG.error("unexpected error on {} {}", method, path, e);
    return new ErrorAnswer(
        500, json("internal", "internal error: " + e.getClass().getSimpleName()), false);
  }

  /** 503 with Retry-After: the database cannot serve us now. */
  private static ErrorAnswer unavailable(String method, String path, String databaseMessage) {
    String message = "database unavailable: " + firstLine(databaseMessage);
    LOG.warn("503 on {} {}: {}", method, path, message);
    return new ErrorAnswer(503, json("unavailable", message), true);
  }

  /** 400: the database refused a value (SQLSTATE class 22, data exception). */
  private static ErrorAnswer rejected(String databaseMessage) {
    return new ErrorAnswer(
        400,
        json("bad_request", "value rejected by the database: " + firstLine(databaseMessage)),
        false);
  }

  static String json(String error, String message) {
    try {
      return JSON.writeValueAsString(
          Map.of("error", error, "message", message == null ? error : message));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  static boolean isUnavailable(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String st = s.getSQLState();
        if (unavailableState(st)) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * SQLSTATE classes that mean "the database cannot serve us now": connection exceptions (08),
   * operator intervention such as a shutdown (57P), insufficient resources (53), and a login the
   * server refused (28, e.g. a wrong password: the configuration's fault, not the request's).
   */
  private static boolean unavailableState(String state) {
    return state.startsWith("08")
        || state.startsWith("57P")
        || state.startsWith("53")
        || state.startsWith("28");
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}

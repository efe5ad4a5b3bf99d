package io.taskmesh.kvconnector;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.HttpResponseException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from errors to answers ({@code {error, message}} bodies), shared by the Javalin
 * routes and the key routes served by {@link KeyRoutes}.
 */
record ErrorAnswer(int status, String body, boolean retryAfter) {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorAnswer.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  static ErrorAnswer of(Exception e, String method, String path) {
    if (e instanceof KvException k) {
      return new ErrorAnswer(k.status(), json(k.error(), k.getMessage()), false);
    }
    if (e instanceof HttpResponseException h) {
      int status = h.getStatus();
      String error = switch (status) {
        case 404 -> "not_found";
        case 405 -> "method_not_allowed";
        case 413 -> "payload_too_large";
        default -> status >= 500 ? "internal" : "bad_request";
      };
      return new ErrorAnswer(status, json(error, h.getMessage()), false);
    }
    if (e instanceof SQLException sql && isUnavailable(sql)) {
      String message = "database unavailable: " + firstLine(sql.getMessage());
      LOG.warn("503 on {} {}: {}", method, path, message);
      return new ErrorAnswer(503, json("unavailable", message), true);
    }
    if (e instanceof SQLException sql && sql.getSQLState() != null && sql.getSQLState().startsWith("22")) {
      return new ErrorAnswer(400, json("bad_request", "value rejected by the database: " + firstLine(sql.getMessage())), false);
    }
    LOG.error("unexpected error on {} {}", method, path, e);
    return new ErrorAnswer(500, json("internal", "internal error: " + e.getClass().getSimpleName()), false);
  }

  static String json(String error, String message) {
    try {
      return JSON.writeValueAsString(Map.of("error", error, "message", message == null ? error : message));
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
        if (st.startsWith("08") || st.startsWith("57P") || st.startsWith("53")) {
          return true;
        }
      }
    }
    return false;
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}

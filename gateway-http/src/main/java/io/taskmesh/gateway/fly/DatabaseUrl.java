package io.taskmesh.gateway.fly;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * {@code SVC_DATABASE_URL} as JDBC: accepts {@code jdbc:postgresql://...} or a {@code
 * postgres(ql)://user:pw@host/db} DSN.
 */
public final class DatabaseUrl {
  private DatabaseUrl() {}

  public static String toJdbc(String url) {
    String u = url.trim();
    if (u.startsWith("jdbc:postgresql:")) {
      return u;
    }
    if (!u.startsWith("postgres://") && !u.startsWith("postgresql://")) {
      throw new IllegalArgumentException(
          "SVC_DATABASE_URL must be a postgresql:// DSN or a jdbc:postgresql: URL");
    }
    try {
      URI uri = new URI(u);
      StringBuilder jdbc = new StringBuilder("jdbc:postgresql://").append(uri.getHost());
      if (uri.getPort() > 0) {
        jdbc.append(':').append(uri.getPort());
      }
      jdbc.append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
      StringBuilder q = new StringBuilder(uri.getRawQuery() == null ? "" : uri.getRawQuery());
      if (uri.getRawUserInfo() != null) {
        String[] parts = uri.getRawUserInfo().split(":", 2);
        append(q, "user", URLDecoder.decode(parts[0], StandardCharsets.UTF_8));
        if (parts.length == 2) {
          append(q, "password", URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
        }
      }
      return q.length() == 0 ? jdbc.toString() : jdbc.append('?').append(q).toString();
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("SVC_DATABASE_URL is not a valid URL", e);
    }
  }

  private static void append(StringBuilder q, String key, String value) {
    if (q.length() > 0) {
      q.append('&');
    }
    q.append(key).append('=').append(URLEncoder.encode(value, StandardCharsets.UTF_8));
  }
}

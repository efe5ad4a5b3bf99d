package io.taskmesh.kvconnector;

import io.taskmesh.servicekit.ConfigException;
import io.taskmesh.servicekit.Env;
import io.taskmesh.servicekit.StartupRetry;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The connector's whole configuration, read once from the environment and validated eagerly.
 *
 * @param socket {@code CONNECTOR_SOCKET}: path of the Unix socket to listen on
 * @param jdbcUrl from {@code STATE_PROXY_PG_URL} ({@code postgres://user:pw@host:port/db} or {@code
 *     jdbc:postgresql://...}), without user and password
 * @param pgUser user from the URL (null: from the JDBC URL's own parameters, if any)
 * @param pgPassword password from the URL (null: none)
 * @param indexes {@code STATE_PROXY_PG_INDEXES}, comma separated
 * @param socketMode {@code CONNECTOR_SOCKET_MODE}, octal, default {@code 0666}
 * @param maxBodyBytes {@code CONNECTOR_MAX_BODY_BYTES}, default 1 MiB; larger bodies get 413
 * @param poolSize {@code CONNECTOR_PG_POOL_SIZE}, default 8
 * @param pgTimeout {@code CONNECTOR_PG_TIMEOUT_MS}, default 1000: how long a request waits for a
 *     database connection before answering 503
 * @param eventLoops {@code CONNECTOR_EVENT_LOOPS}, default half the cores (at least one), never
 *     more than {@code poolSize}: a GET cost the loop about the CPU it cost Postgres (README,
 *     Benchmark), so the other half is left to Postgres's backends
 * @param startupRetryTimeout {@code SVC_STARTUP_RETRY_TIMEOUT}, default {@code 60s}: how long
 *     start-up retries Postgres (exponential backoff) before it gives up
 */
public record KvConfig(
    Path socket,
    String jdbcUrl,
    String pgUser,
    String pgPassword,
    List<IndexSpec> indexes,
    Set<PosixFilePermission> socketMode,
    int maxBodyBytes,
    int poolSize,
    Duration pgTimeout,
    int eventLoops,
    Duration startupRetryTimeout) {

  public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

  /** sun_path is 108 bytes including the terminating NUL. */
  static final int MAX_SOCKET_PATH_BYTES = 107;

  public KvConfig {
    indexes = List.copyOf(indexes);
    socketMode = Set.copyOf(socketMode);
  }

  public static KvConfig fromEnv(Map<String, String> vars) {
    Env env = Env.of(vars);
    Path socket = socket(env);
    String rawUrl = env.required("STATE_PROXY_PG_URL");
    String[] jdbc = toJdbc(rawUrl);
    List<IndexSpec> indexes = indexes(vars.get("STATE_PROXY_PG_INDEXES"));
    Set<PosixFilePermission> mode = socketMode(vars.getOrDefault("CONNECTOR_SOCKET_MODE", "0666"));
    int maxBody =
        env.integer("CONNECTOR_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, 1, Integer.MAX_VALUE - 1);
    int pool = env.integer("CONNECTOR_PG_POOL_SIZE", 8, 1, 200);
    int timeoutMs = env.integer("CONNECTOR_PG_TIMEOUT_MS", 1000, 250, 60_000);
    int loops =
        env.integer(
            "CONNECTOR_EVENT_LOOPS",
            defaultEventLoops(Runtime.getRuntime().availableProcessors()),
            1,
            256);
    return new KvConfig(
        socket,
        jdbc[0],
        jdbc[1],
        jdbc[2],
        indexes,
        mode,
        maxBody,
        pool,
        Duration.ofMillis(timeoutMs),
        Math.min(loops, pool),
        StartupRetry.limit(env));
  }

  /** Half the cores, at least one (the kv-connector README's benchmark: one loop on two cores). */
  static int defaultEventLoops(int cores) {
    return Math.max(1, cores / 2);
  }

  private static Path socket(Env env) {
    String raw = env.required("CONNECTOR_SOCKET");
    if (raw.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
      throw new ConfigException(
          "CONNECTOR_SOCKET",
          "path is longer than " + MAX_SOCKET_PATH_BYTES + " bytes, the Unix socket limit");
    }
    try {
      return Path.of(raw).toAbsolutePath();
    } catch (RuntimeException e) {
      throw new ConfigException("CONNECTOR_SOCKET", "not a path: " + e.getMessage());
    }
  }

  /** Returns {jdbcUrl, user, password}. */
  static String[] toJdbc(String raw) {
    String var = "STATE_PROXY_PG_URL";
    if (raw.startsWith("jdbc:postgresql://")) {
      checkParameters(urlParameters(raw));
      return new String[] {raw, null, null};
    }
    if (!raw.startsWith("postgres://") && !raw.startsWith("postgresql://")) {
      throw new ConfigException(
          var, "must start with postgres://, postgresql:// or jdbc:postgresql://");
    }
    URI uri;
    try {
      uri = new URI(raw);
    } catch (URISyntaxException e) {
      throw new ConfigException(var, "not a valid URL: " + e.getReason());
    }
    if (uri.getHost() == null || uri.getHost().isEmpty()) {
      throw new ConfigException(var, "no host in the URL");
    }
    String db =
        uri.getRawPath() == null || uri.getRawPath().length() <= 1
            ? "postgres"
            : uri.getRawPath().substring(1);
    String user = null;
    String password = null;
    if (uri.getRawUserInfo() != null) {
      String[] up = uri.getRawUserInfo().split(":", 2);
      user = decode(up[0]);
      password = up.length > 1 ? decode(up[1]) : null;
    }
    checkParameters(parameters(uri.getRawQuery()));
    String url =
        "jdbc:postgresql://"
            + uri.getHost()
            + (uri.getPort() > 0 ? ":" + uri.getPort() : "")
            + "/"
            + db
            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    return new String[] {url, user, password};
  }

  /**
   * URL parameters both database clients honour the same way (pgjdbc for schema, listing and query;
   * Vert.x's reactive client for the key routes, see KeyStatements): anything else, such as a
   * schema setting only one of them would apply, is refused rather than half applied.
   */
  static final Set<String> SUPPORTED_PARAMETERS =
      Set.of("user", "password", "ApplicationName", "sslmode", "sslrootcert");

  /**
   * {@code disable}; {@code require} (TLS, the certificate not checked); {@code verify-ca} and
   * {@code verify-full} (checked against {@code sslrootcert}; full also checks the host name).
   * {@code allow}/{@code prefer} would fall back to plain text, and are refused.
   */
  static final Set<String> SSL_MODES = Set.of("disable", "require", "verify-ca", "verify-full");

  private static void checkParameters(Map<String, String> params) {
    for (String name : params.keySet()) {
      if (!SUPPORTED_PARAMETERS.contains(name)) {
        throw new ConfigException(
            "STATE_PROXY_PG_URL",
            "parameter '"
                + name
                + "' is not supported (supported: "
                + String.join(", ", new TreeSet<>(SUPPORTED_PARAMETERS))
                + ")");
      }
    }
    String mode = params.get("sslmode");
    if (mode != null && !SSL_MODES.contains(mode)) {
      throw new ConfigException(
          "STATE_PROXY_PG_URL",
          "sslmode '"
              + mode
              + "' is not supported (supported: "
              + String.join(", ", new TreeSet<>(SSL_MODES))
              + ")");
    }
    boolean verifies = "verify-ca".equals(mode) || "verify-full".equals(mode);
    if (verifies != params.containsKey("sslrootcert")) {
      throw new ConfigException(
          "STATE_PROXY_PG_URL",
          verifies
              ? "sslmode=" + mode + " needs sslrootcert=<path of the CA certificate, PEM>"
              : "sslrootcert is only used with sslmode=verify-ca or verify-full");
    }
  }

  /**
   * The query parameters of {@code jdbcUrl}, decoded as pgjdbc decodes them; the one parser for
   * both clients.
   */
  static Map<String, String> urlParameters(String jdbcUrl) {
    int q = jdbcUrl.indexOf('?');
    return parameters(q < 0 ? null : jdbcUrl.substring(q + 1));
  }

  private static Map<String, String> parameters(String rawQuery) {
    Map<String, String> params = new LinkedHashMap<>();
    if (rawQuery != null && !rawQuery.isEmpty()) {
      for (String param : rawQuery.split("&")) {
        String[] kv = param.split("=", 2);
        params.put(kv[0], kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
      }
    }
    return params;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  static List<IndexSpec> indexes(String raw) {
    if (raw == null || raw.isBlank()) {
      return List.of();
    }
    Set<String> names = new LinkedHashSet<>();
    List<IndexSpec> out = new ArrayList<>();
    for (String part : splitTopLevel(raw)) {
      IndexSpec spec;
      try {
        spec = IndexSpec.parse(part);
      } catch (IllegalArgumentException e) {
        throw new ConfigException("STATE_PROXY_PG_INDEXES", e.getMessage());
      }
      if (names.add(spec.indexName())) {
        out.add(spec);
      }
    }
    return out;
  }

  /** Comma-separated; commas are not valid inside a spec anyway. */
  private static List<String> splitTopLevel(String raw) {
    List<String> parts = new ArrayList<>();
    for (String p : raw.split(",", -1)) {
      parts.add(p.trim());
    }
    return parts;
  }

  static Set<PosixFilePermission> socketMode(String raw) {
    String s = raw.trim().toLowerCase(Locale.ROOT);
    if (s.startsWith("0o")) {
      s = s.substring(2);
    }
    if (!s.matches("^0?[0-7]{3}$")) {
      throw new ConfigException(
          "CONNECTOR_SOCKET_MODE", "'" + raw + "' is not an octal mode like 0660");
    }
    int mode = Integer.parseInt(s, 8);
    StringBuilder rwx = new StringBuilder();
    String letters = "rwxrwxrwx";
    for (int i = 0; i < 9; i++) {
      rwx.append((mode & (1 << (8 - i))) != 0 ? letters.charAt(i) : '-');
    }
    return PosixFilePermissions.fromString(rwx.toString());
  }

  @Override
  public String toString() {
    return "KvConfig[socket="
        + socket
        + ", jdbcUrl="
        + jdbcUrl
        + ", user="
        + pgUser
        + ", password="
        + (pgPassword == null ? "none" : "***")
        + ", indexes="
        + indexes
        + ", socketMode="
        + PosixFilePermissions.toString(socketMode)
        + ", maxBodyBytes="
        + maxBodyBytes
        + ", poolSize="
        + poolSize
        + ", pgTimeout="
        + pgTimeout
        + ", eventLoops="
        + eventLoops
        + ", startupRetryTimeout="
        + startupRetryTimeout
        + "]";
  }
}

package io.taskmesh.kvconnector;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.servicekit.StartupRetry;
import io.taskmesh.servicekit.ops.JdbcProbe;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code kv} table through pgjdbc: the schema at start-up, listing and {@code POST /query} (SQL
 * built per request, every value a parameter). The per-key statements are {@link KeyStatements}.
 */
public final class KvStore implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvStore.class);

  private final HikariDataSource ds;
  private final List<IndexSpec> indexes;

  public KvStore(KvConfig config) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(config.jdbcUrl());
    if (config.pgUser() != null) {
      hc.setUsername(config.pgUser());
    }
    if (config.pgPassword() != null) {
      hc.setPassword(config.pgPassword());
    }
    hc.setPoolName("kv-connector");
    hc.setMaximumPoolSize(config.poolSize());
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(config.pgTimeout().toMillis());
    hc.setValidationTimeout(Math.max(250, config.pgTimeout().toMillis() / 2));
    // the pool starts even while Postgres is down: requests answer 503 until it is back
    hc.setInitializationFailTimeout(-1);
    hc.addDataSourceProperty(
        "connectTimeout", String.valueOf(Math.max(1, config.pgTimeout().toSeconds())));
    hc.addDataSourceProperty("socketTimeout", "30");
    hc.addDataSourceProperty("tcpKeepAlive", "true");
    hc.addDataSourceProperty("ApplicationName", "kv-connector");
    this.ds = new HikariDataSource(hc);
    this.indexes = config.indexes();
  }

  /**
   * Creates the table, the GIN index, the key-prefix index and one expression index per spec.
   * Indexes are built CONCURRENTLY (no write lock on a live table); an invalid leftover of an
   * interrupted concurrent build is dropped and rebuilt. Safe to run from several connectors.
   */
  public void ensureSchema() throws SQLException {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(true);
      ddl(
          st,
          "CREATE TABLE IF NOT EXISTS kv (key text PRIMARY KEY, value jsonb NOT NULL, "
              + "created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())");
      index(
          c,
          st,
          "kv_value_gin",
          "CREATE INDEX CONCURRENTLY IF NOT EXISTS kv_value_gin ON kv USING gin (value)");
      index(
          c,
          st,
          "kv_key_prefix",
          "CREATE INDEX CONCURRENTLY IF NOT EXISTS kv_key_prefix ON kv (key text_pattern_ops)");
      for (IndexSpec spec : indexes) {
        if (spec.castType() != null) {
          ddl(st, IndexSpec.tryCastFunctionDdl(spec.castType()));
        }
        index(
            c,
            st,
            spec.indexName(),
            "CREATE INDEX CONCURRENTLY IF NOT EXISTS "
                + spec.indexName()
                + " ON kv (("
                + spec.expression()
                + "))");
      }
    }
  }

  /**
   * DDL raced by another connector ("already exists", "tuple concurrently updated") is retried
   * once.
   */
  private static void ddl(Statement st, String sql) throws SQLException {
    try {
      st.execute(sql);
    } catch (SQLException e) {
      if ("23505".equals(e.getSQLState())
          || "XX000".equals(e.getSQLState())
          || "42P07".equals(e.getSQLState())) {
        st.execute(sql);
      } else {
        throw e;
      }
    }
  }

  private static void index(Connection c, Statement st, String name, String sql)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT i.indisvalid FROM pg_index i JOIN pg_class x ON x.oid = i.indexrelid WHERE x.relname = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next() && !rs.getBoolean(1)) {
          LOG.warn("index {} is invalid (an interrupted concurrent build): rebuilding it", name);
          st.execute("DROP INDEX CONCURRENTLY IF EXISTS " + name);
        }
      }
    }
    ddl(st, sql);
  }

  /**
   * {@link #ensureSchema()}, retried with backoff while Postgres does not accept connections yet
   * (starting, restarting, not listening) for at most {@code retryFor} ({@code
   * SVC_STARTUP_RETRY_TIMEOUT}); a refused login or a bad database name is not retried.
   *
   * @throws StartupRetry.GaveUp with a one-line message naming the last problem
   */
  public void ensureSchema(StartupRetry retry) throws InterruptedException {
    retry.run(
        () -> {
          ensureSchema();
          return null;
        });
  }

  /** The start-up retry of this store's schema, bounded by {@code limit}. */
  public static StartupRetry startupRetry(Duration limit) {
    return StartupRetry.postgres("Postgres", limit);
  }

  /** The readiness check: a pooled connection validates within {@code timeout}. */
  public JdbcProbe readinessProbe(Duration timeout) {
    return new JdbcProbe(ds, timeout);
  }

  /**
   * Keys under {@code prefix} in key order; with a delimiter, deeper keys fold into {@code
   * prefixes}.
   */
  public record Listing(List<String> keys, List<String> prefixes) {}

  public Listing list(String prefix, String delimiter, Long limit) throws SQLException {
    String sql =
        "SELECT key FROM kv"
            + (prefix.isEmpty() ? "" : " WHERE key LIKE ? ESCAPE '\\'")
            + " ORDER BY key"
            + (limit != null && delimiter == null ? " LIMIT ?" : "");
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      int i = 1;
      if (!prefix.isEmpty()) {
        ps.setString(i++, QueryCompiler.likePrefix(prefix));
      }
      if (limit != null && delimiter == null) {
        ps.setLong(i, limit);
      }
      ps.setFetchSize(1000);
      List<String> keys = new ArrayList<>();
      TreeSet<String> prefixes = new TreeSet<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String key = rs.getString(1);
          int cut = delimiter == null ? -1 : key.indexOf(delimiter, prefix.length());
          if (cut >= 0) {
            prefixes.add(key.substring(0, cut + delimiter.length()));
          } else if (limit == null || keys.size() < limit) {
            keys.add(key);
          }
        }
      }
      return new Listing(keys, new ArrayList<>(prefixes));
    }
  }

  /** Result of {@code POST /query}: the page and, when asked, the number of all matching rows. */
  public record QueryResult(List<KvRecord> rows, Long total) {}

  QueryResult query(Query q) throws SQLException {
    try (Connection c = ds.getConnection()) {
      boolean twoStatements = q.countSql() != null;
      if (twoStatements) {
        // one snapshot for the page and the total
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
        c.setReadOnly(true);
      }
      try {
        List<KvRecord> rows = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(q.selectSql())) {
          bind(ps, q.selectParams());
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              rows.add(row(rs));
            }
          }
        }
        Long total = null;
        if (twoStatements) {
          try (PreparedStatement ps = c.prepareStatement(q.countSql())) {
            bind(ps, q.countParams());
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              total = rs.getLong(1);
            }
          }
          c.commit();
        }
        return new QueryResult(rows, total);
      } finally {
        if (twoStatements) {
          try {
            c.rollback();
            c.setReadOnly(false);
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            c.setAutoCommit(true);
          } catch (SQLException ignored) {
            // a broken connection is evicted by the pool
          }
        }
      }
    }
  }

  private static void bind(PreparedStatement ps, List<Object> params) throws SQLException {
    for (int i = 0; i < params.size(); i++) {
      ps.setObject(i + 1, params.get(i));
    }
  }

  private static KvRecord row(ResultSet rs) throws SQLException {
    return new KvRecord(rs.getString(1), rs.getString(2), instant(rs, 3), instant(rs, 4));
  }

  private static Instant instant(ResultSet rs, int col) throws SQLException {
    Timestamp t = rs.getTimestamp(col);
    return t == null ? null : t.toInstant();
  }

  @Override
  public void close() {
    ds.close();
  }
}

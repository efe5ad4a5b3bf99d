package io.taskmesh.gateway.oauth;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.taskmesh.servicekit.StartupRetry;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * Clients, authorization codes, token families and refresh tokens in Postgres, so a restart loses
 * nothing and every replica on the database accepts every other's tokens. Codes and refresh tokens
 * are stored only as SHA-256 hashes. Single use is enforced by the database: a conditional {@code
 * UPDATE ... WHERE used = false RETURNING}, so of two concurrent uses exactly one gets the row.
 */
public final class OAuthStore implements AutoCloseable {
  /** One advisory lock id for the schema, so replicas starting together do not race on DDL. */
  private static final long SCHEMA_LOCK = 0x7461736b6f617574L;

  private static final String SCHEMA =
      """
      CREATE TABLE IF NOT EXISTS oauth_clients (
        client_id text PRIMARY KEY,
        client_name text,
        redirect_uris text[] NOT NULL,
        scope text NOT NULL,
        grant_types text[] NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS oauth_codes (
        code_hash text PRIMARY KEY,
        client_id text NOT NULL,
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        family_id text NOT NULL,
        expires_at bigint NOT NULL,
        used boolean NOT NULL DEFAULT false);
      CREATE TABLE IF NOT EXISTS oauth_families (
        family_id text PRIMARY KEY,
        client_id text NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        revoked boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS oauth_refresh_tokens (
        token_hash text PRIMARY KEY,
        family_id text NOT NULL REFERENCES oauth_families (family_id),
        expires_at bigint NOT NULL,
        used boolean NOT NULL DEFAULT false);
      CREATE INDEX IF NOT EXISTS oauth_refresh_tokens_family ON oauth_refresh_tokens (family_id);
      """;

  private final HikariDataSource pool;

  public OAuthStore(String jdbcUrl) {
    this(jdbcUrl, StartupRetry.postgres("Postgres (OAuth)", Duration.ZERO));
  }

  /**
   * Creates the schema, retrying a Postgres that does not accept connections yet as {@code retry}
   * says ({@code SVC_STARTUP_RETRY_TIMEOUT}).
   *
   * @throws StartupRetry.GaveUp with a one-line message once it gives up
   */
  public OAuthStore(String jdbcUrl, StartupRetry retry) {
    HikariConfig hc = new HikariConfig();
    hc.setJdbcUrl(jdbcUrl);
    hc.setMaximumPoolSize(8);
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(5000);
    // no connection at construction: the start-up retry below is what waits for the database
    hc.setInitializationFailTimeout(-1);
    hc.setPoolName("oauth");
    this.pool = new HikariDataSource(hc);
    try {
      retry.run(
          () -> {
            createSchema();
            return null;
          });
    } catch (InterruptedException e) {
      pool.close();
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the OAuth database", e);
    } catch (RuntimeException e) {
      pool.close();
      throw e;
    }
  }

  private void createSchema() throws SQLException {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(?)")) {
        lock.setLong(1, SCHEMA_LOCK);
        lock.execute();
      }
      try (Statement s = c.createStatement()) {
        s.execute(SCHEMA);
      }
      c.commit();
    }
  }

  public void saveClient(OAuthClient client) {
    run(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO oauth_clients"
                      + " (client_id, client_name, redirect_uris, scope, grant_types) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, client.clientId());
            ps.setString(2, client.clientName());
            ps.setArray(3, c.createArrayOf("text", client.redirectUris().toArray()));
            ps.setString(4, client.scope());
            ps.setArray(5, c.createArrayOf("text", client.grantTypes().toArray()));
            ps.executeUpdate();
          }
          return null;
        });
  }

  public Optional<OAuthClient> client(String clientId) {
    return run(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "SELECT client_name, redirect_uris, scope, grant_types"
                      + " FROM oauth_clients WHERE client_id = ?")) {
            ps.setString(1, clientId);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.empty();
              }
              return Optional.of(
                  new OAuthClient(
                      clientId,
                      rs.getString(1),
                      strings(rs.getArray(2)),
                      rs.getString(3),
                      strings(rs.getArray(4))));
            }
          }
        });
  }

  /** A new authorization code (stored hashed) with everything the exchange must check. */
  public void saveCode(String code, IssuedCode details) {
    run(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO oauth_codes (code_hash, client_id, redirect_uri,"
                      + " code_challenge, scope, resource, family_id, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
            ps.setString(1, hash(code));
            ps.setString(2, details.clientId());
            ps.setString(3, details.redirectUri());
            ps.setString(4, details.codeChallenge());
            ps.setString(5, details.scope());
            ps.setString(6, details.resource());
            ps.setString(7, details.familyId());
            ps.setLong(8, details.expiresAtMillis());
            ps.executeUpdate();
          }
          return null;
        });
  }

  /**
   * Marks the code used and returns what it was issued for; empty when the code is unknown. A code
   * that was already used revokes the family it issued and answers {@link CodeReuse}.
   */
  public Optional<IssuedCode> consumeCode(String code) {
    String h = hash(code);
    return run(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE oauth_codes SET used = true"
                      + " WHERE code_hash = ? AND used = false"
                      + " RETURNING client_id, redirect_uri, code_challenge, scope, resource, family_id, expires_at")) {
            ps.setString(1, h);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                return Optional.of(
                    new IssuedCode(
                        rs.getString(1),
                        rs.getString(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getString(5),
                        rs.getString(6),
                        rs.getLong(7)));
              }
            }
          }
          try (PreparedStatement ps =
              c.prepareStatement("SELECT family_id FROM oauth_codes WHERE code_hash = ?")) {
            ps.setString(1, h);
            try (ResultSet rs = ps.executeQuery()) {
              if (!rs.next()) {
                return Optional.empty();
              }
              revoke(c, rs.getString(1));
              throw new CodeReuse(rs.getString(1));
            }
          }
        });
  }

  /**
   * Starts a token family and stores its first refresh token (null: the client has none), in one
   * transaction.
   */
  public void startFamily(
      String familyId,
      String clientId,
      String scope,
      String resource,
      String refreshToken,
      long refreshExpiresAtMillis) {
    transaction(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO oauth_families (family_id, client_id, scope, resource) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, familyId);
            ps.setString(2, clientId);
            ps.setString(3, scope);
            ps.setString(4, resource);
            ps.executeUpdate();
          }
          if (refreshToken != null) {
            insertRefresh(c, familyId, refreshToken, refreshExpiresAtMillis);
          }
          return null;
        });
  }

  /**
   * Rotation: marks {@code presented} used and stores {@code next} in the same family, in one
   * transaction. Returns the family; empty for an unknown token. A token already used revokes its
   * family and answers {@link RefreshReuse}; a token of another client, of a revoked family or past
   * its lifetime answers {@code invalid_grant} (the other client's token is left untouched).
   */
  public Optional<Family> rotate(
      String presented, String clientId, String next, long nextExpiresAtMillis, long nowMillis) {
    String h = hash(presented);
    return transaction(
        c -> {
          String familyId = null;
          long expiresAt = 0;
          try (PreparedStatement ps =
              c.prepareStatement(
                  "UPDATE oauth_refresh_tokens SET used = true"
                      + " WHERE token_hash = ? AND used = false RETURNING family_id, expires_at")) {
            ps.setString(1, h);
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                familyId = rs.getString(1);
                expiresAt = rs.getLong(2);
              }
            }
          }
          if (familyId == null) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT family_id FROM oauth_refresh_tokens WHERE token_hash = ?")) {
              ps.setString(1, h);
              try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                  return Optional.empty();
                }
                revoke(c, rs.getString(1));
                c.commit();
                throw new RefreshReuse(rs.getString(1));
              }
            }
          }
          Family family = family(c, familyId).orElseThrow();
          if (!family.clientId().equals(clientId)) {
            c.rollback();
            throw OAuthError.invalidGrant("refresh token was issued to another client");
          }
          if (family.revoked()) {
            c.commit();
            throw OAuthError.invalidGrant("refresh token family is revoked");
          }
          if (expiresAt <= nowMillis) {
            c.commit();
            throw OAuthError.invalidGrant("refresh token expired");
          }
          insertRefresh(c, familyId, next, nextExpiresAtMillis);
          return Optional.of(family);
        });
  }

  public boolean familyRevoked(String familyId) {
    return run(c -> family(c, familyId).map(Family::revoked).orElse(true));
  }

  public void revokeFamily(String familyId) {
    run(
        c -> {
          revoke(c, familyId);
          return null;
        });
  }

  private static Optional<Family> family(Connection c, String familyId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT client_id, scope, resource, revoked FROM oauth_families WHERE family_id = ?")) {
      ps.setString(1, familyId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(
                new Family(
                    familyId, rs.getString(1), rs.getString(2), rs.getString(3), rs.getBoolean(4)))
            : Optional.empty();
      }
    }
  }

  private static void revoke(Connection c, String familyId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE oauth_families SET revoked = true WHERE family_id = ?")) {
      ps.setString(1, familyId);
      ps.executeUpdate();
    }
  }

  private static void insertRefresh(
      Connection c, String familyId, String token, long expiresAtMillis) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO oauth_refresh_tokens (token_hash, family_id, expires_at) VALUES (?, ?, ?)")) {
      ps.setString(1, hash(token));
      ps.setString(2, familyId);
      ps.setLong(3, expiresAtMillis);
      ps.executeUpdate();
    }
  }

  static String hash(String secret) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<String> strings(Array array) throws SQLException {
    return Arrays.stream((Object[]) array.getArray()).map(Object::toString).toList();
  }

  private interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  private <T> T run(Work<T> work) {
    try (Connection c = pool.getConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw new StoreUnavailable(e);
    }
  }

  /**
   * Runs {@code work} in one transaction; commits unless it throws (an explicit commit inside
   * wins).
   */
  private <T> T transaction(Work<T> work) {
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new StoreUnavailable(e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }

  /** What an authorization code was issued for. */
  public record IssuedCode(
      String clientId,
      String redirectUri,
      String codeChallenge,
      String scope,
      String resource,
      String familyId,
      long expiresAtMillis) {}

  /** A token family: every refresh and access token that descends from one authorization code. */
  public record Family(
      String familyId, String clientId, String scope, String resource, boolean revoked) {}

  /** A used authorization code came back; the family it issued is revoked. */
  public static final class CodeReuse extends RuntimeException {
    final String familyId;

    CodeReuse(String familyId) {
      super("authorization code already used; the tokens issued from it are revoked");
      this.familyId = familyId;
    }
  }

  /** A rotated-out refresh token came back; its whole family is revoked. */
  public static final class RefreshReuse extends RuntimeException {
    final String familyId;

    RefreshReuse(String familyId) {
      super("refresh token already used; its token family is revoked");
      this.familyId = familyId;
    }
  }

  /** The database did not answer. */
  public static final class StoreUnavailable extends RuntimeException {
    StoreUnavailable(SQLException e) {
      super("OAuth store unavailable: " + e.getMessage(), e);
    }
  }
}

package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.LocalPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The connector against a role that must log in with a SCRAM-SHA-256 password, as on a real server
 * (the shared test Postgres trusts loopback otherwise). Both database clients are used: the key
 * routes (reactive client) and {@code POST /query} (pgjdbc). A wrong password is a 503, never a
 * 2xx.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KvPasswordAuthIT {
  private static final String ROLE = "kv_scram_user";

  /**
   * A space, a colon and an at sign: Vert.x 4.5's SCRAM client dropped the space and failed to log
   * in.
   */
  private static final String PASSWORD = "p w:x@y";

  private static final String ENCODED = "p%20w%3Ax%40y";

  @Test
  void aPasswordRoleWorksThroughBothClientsAndAWrongPasswordIs503() throws Exception {
    LocalPostgres pg = LocalPostgres.shared();
    String db = requireScramFor(pg);
    try (Connection direct =
        DriverManager.getConnection(
            "jdbc:postgresql://127.0.0.1:" + pg.port() + "/" + db, ROLE, PASSWORD)) {
      assertThat(direct.isValid(1)).as("pgjdbc logs in with the password").isTrue();
    }
    String url = "postgres://" + ROLE + ":" + ENCODED + "@127.0.0.1:" + pg.port() + "/" + db;
    try (ConnectorOn kv = ConnectorOn.url(url)) {
      assertThat(kv.http().get("/healthz").status()).isEqualTo(200);
      UnixHttp.Resp put = kv.http().put("/keys/auth/1", "{\"status\":\"pending\"}");
      assertThat(put.status()).as(put.body()).isEqualTo(201);
      assertThat(
              kv.http().put("/keys/auth/1?if_status=pending", "{\"status\":\"running\"}").status())
          .isEqualTo(200);
      assertThat(kv.http().get("/keys/auth/1").body()).contains("\"running\"");
      UnixHttp.Resp q =
          kv.http().post("/query", "{\"filter\":{\"status\":\"running\"},\"count\":true}");
      assertThat(q.status()).as(q.body()).isEqualTo(200);
      assertThat(q.body()).contains("\"total\":1");
    }
    try (ConnectorOn kv = ConnectorOn.url(url.replace(ENCODED, "wrong"))) {
      assertThat(kv.http().get("/healthz").status()).isEqualTo(503);
      UnixHttp.Resp put = kv.http().put("/keys/auth/2", "{\"status\":\"pending\"}");
      assertThat(put.status()).isEqualTo(503);
      assertThat(put.body()).contains("unavailable").doesNotContain("wrong");
    }
  }

  /**
   * Creates the role and its database once, and puts a {@code scram-sha-256} line for that role
   * alone at the top of pg_hba.conf (first match wins, so every other role keeps its trust line).
   */
  private static String requireScramFor(LocalPostgres pg) throws Exception {
    String db = ROLE + "_db";
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        Statement st = c.createStatement()) {
      Path hba;
      try (ResultSet rs = st.executeQuery("SHOW hba_file")) {
        rs.next();
        hba = Path.of(rs.getString(1));
      }
      String line = "host all " + ROLE + " 127.0.0.1/32 scram-sha-256\n";
      String current = Files.readString(hba);
      if (!current.startsWith(line)) {
        Files.writeString(hba, line + current);
        st.execute("SELECT pg_reload_conf()");
      }
      st.execute("SET password_encryption = 'scram-sha-256'");
      try (ResultSet rs =
          st.executeQuery("SELECT 1 FROM pg_roles WHERE rolname = '" + ROLE + "'")) {
        if (!rs.next()) {
          st.execute("CREATE ROLE " + ROLE + " LOGIN");
          st.execute("CREATE DATABASE " + db + " OWNER " + ROLE);
        }
      }
      st.execute("ALTER ROLE " + ROLE + " PASSWORD '" + PASSWORD + "'");
    }
    return db;
  }
}

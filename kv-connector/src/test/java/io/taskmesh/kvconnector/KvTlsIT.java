package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.LocalPostgres;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TLS to Postgres, for both database clients: a Postgres of its own with {@code ssl=on} and a
 * self-signed certificate made with keytool. {@code verify-full} and {@code require} work and every
 * connection of the connector is encrypted (pg_stat_ssl); a certificate from another CA is refused
 * (503, nothing written).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvTlsIT {
  private static Path dir;
  private static Path cert;
  private static LocalPostgres pg;

  @BeforeAll
  static void startTlsPostgres() throws Exception {
    dir = Files.createTempDirectory("kvtls");
    cert = selfSigned(dir, "server");
    Path key = dir.resolve("server.key");
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    pg =
        LocalPostgres.start(
            dir.resolve("pg"),
            0,
            Map.of("ssl", "on", "ssl_cert_file", cert.toString(), "ssl_key_file", key.toString()));
  }

  @AfterAll
  static void stop() {
    if (pg != null) {
      pg.close();
    }
  }

  @Test
  void verifyFullEncryptsEveryConnectionOfBothClients() throws Exception {
    String url = base() + "&sslmode=verify-full&sslrootcert=" + cert;
    try (ConnectorOn kv = ConnectorOn.url(url)) {
      assertThat(kv.http().get("/healthz").status()).isEqualTo(200);
      assertThat(kv.http().put("/keys/tls/1", "{\"status\":\"pending\"}").status()).isEqualTo(201);
      assertThat(
              kv.http().put("/keys/tls/1?if_status=pending", "{\"status\":\"running\"}").status())
          .isEqualTo(200);
      assertThat(kv.http().get("/keys/tls/1").body()).contains("\"running\"");
      UnixHttp.Resp q = kv.http().post("/query", "{\"prefix\":\"tls/1\",\"count\":true}");
      assertThat(q.body()).contains("\"total\":1");
      try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) "
                      + "FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'kv-connector'")) {
        rs.next();
        assertThat(rs.getInt(1))
            .as("encrypted connections (Hikari and the key routes' pools)")
            .isGreaterThanOrEqualTo(2);
        assertThat(rs.getInt(2)).as("plain connections").isZero();
      }
    }
  }

  @Test
  void requireEncryptsWithoutCheckingTheCertificate() throws Exception {
    try (ConnectorOn kv = ConnectorOn.url(base() + "&sslmode=require")) {
      assertThat(kv.http().put("/keys/tls/req", "{\"status\":\"pending\"}").status())
          .isEqualTo(201);
      assertThat(kv.http().get("/keys/tls/req").status()).isEqualTo(200);
    }
  }

  @Test
  void aCertificateFromAnotherAuthorityIsRefused() throws Exception {
    Path other = selfSigned(Files.createTempDirectory("kvtls-other"), "other");
    try (ConnectorOn kv = ConnectorOn.url(base() + "&sslmode=verify-full&sslrootcert=" + other)) {
      assertThat(kv.http().get("/healthz").status()).isEqualTo(503);
      UnixHttp.Resp put = kv.http().put("/keys/tls/untrusted", "{\"status\":\"pending\"}");
      assertThat(put.status()).as(put.body()).isEqualTo(503);
    }
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl());
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM kv WHERE key = 'tls/untrusted'")) {
      rs.next();
      assertThat(rs.getInt(1)).isZero();
    } catch (SQLException e) {
      assertThat(e.getSQLState()).as("no kv table at all is fine too").isEqualTo("42P01");
    }
  }

  private static String base() {
    return "jdbc:postgresql://127.0.0.1:" + pg.port() + "/postgres?user=postgres";
  }

  /**
   * A self-signed certificate for localhost / 127.0.0.1, made with the JDK's keytool and written as
   * PEM ({@code name.crt}) with its PKCS#8 key ({@code name.key}), the files Postgres reads.
   */
  private static Path selfSigned(Path in, String name) throws Exception {
    Path store = in.resolve(name + ".p12");
    char[] pass = "changeit".toCharArray();
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                name,
                "-keyalg",
                "RSA",
                "-keysize",
                "2048",
                "-validity",
                "2",
                "-dname",
                "CN=localhost",
                "-ext",
                "san=dns:localhost,ip:127.0.0.1",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(pass))
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream is = Files.newInputStream(store)) {
      ks.load(is, pass);
    }
    Files.writeString(
        in.resolve(name + ".crt"), pem("CERTIFICATE", ks.getCertificate(name).getEncoded()));
    Files.writeString(
        in.resolve(name + ".key"), pem("PRIVATE KEY", ks.getKey(name, pass).getEncoded()));
    return in.resolve(name + ".crt");
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}

package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.taskmesh.devkit.TestEnv;
import io.taskmesh.servicekit.ConfigException;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class KvConfigTest {
  private static Map<String, String> env(String... kv) {
    return TestEnv.of(
        Map.of(
            "CONNECTOR_SOCKET",
            "/tmp/x/kv.sock",
            "STATE_PROXY_PG_URL",
            "postgres://u:p%40ss@db.local:5433/app?sslmode=disable"),
        kv);
  }

  @Test
  void defaultsAndUrlConversion() {
    KvConfig c = KvConfig.fromEnv(env());
    assertThat(c.socket().toString()).isEqualTo("/tmp/x/kv.sock");
    assertThat(c.jdbcUrl()).isEqualTo("jdbc:postgresql://db.local:5433/app?sslmode=disable");
    assertThat(c.pgUser()).isEqualTo("u");
    assertThat(c.pgPassword()).isEqualTo("p@ss");
    assertThat(c.toString()).doesNotContain("p@ss");
    assertThat(c.indexes()).isEmpty();
    assertThat(PosixFilePermissions.toString(c.socketMode())).isEqualTo("rw-rw-rw-");
    assertThat(c.maxBodyBytes()).isEqualTo(1024 * 1024);
    assertThat(
            KvConfig.fromEnv(env("STATE_PROXY_PG_URL", "jdbc:postgresql://h/db?user=x")).jdbcUrl())
        .isEqualTo("jdbc:postgresql://h/db?user=x");
  }

  @Test
  void indexesParse() {
    KvConfig c =
        KvConfig.fromEnv(
            env(
                "STATE_PROXY_PG_INDEXES",
                " status , (deadline_at)::timestamptz,( n ) :: NUMERIC,status"));
    assertThat(c.indexes())
        .extracting(IndexSpec::toString)
        .containsExactly("status", "(deadline_at)::timestamptz", "(n)::numeric");
    assertThat(c.indexes().get(1).expression())
        .isEqualTo("kv_try_timestamptz((value->>'deadline_at'))");
    assertThat(c.indexes().get(0).expression()).isEqualTo("(value->>'status')");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "CONNECTOR_SOCKET|            | CONNECTOR_SOCKET: required",
        "CONNECTOR_SOCKET|'  '        | CONNECTOR_SOCKET: required",
        "STATE_PROXY_PG_URL|          | STATE_PROXY_PG_URL: required",
        "STATE_PROXY_PG_URL|mysql://h/db | STATE_PROXY_PG_URL: must start with",
        "STATE_PROXY_PG_URL|postgres:///db | STATE_PROXY_PG_URL: no host",
        "STATE_PROXY_PG_URL|postgres://h h/db | STATE_PROXY_PG_URL: not a valid URL",
        "STATE_PROXY_PG_URL|postgres://h/db?currentSchema=s | STATE_PROXY_PG_URL: parameter 'currentSchema' is not supported",
        "STATE_PROXY_PG_URL|jdbc:postgresql://h/db?user=x&options=-c%20search_path%3Ds | STATE_PROXY_PG_URL: parameter 'options' is not supported",
        "STATE_PROXY_PG_URL|postgres://h/db?sslmode=prefer | STATE_PROXY_PG_URL: sslmode 'prefer' is not supported",
        "STATE_PROXY_PG_URL|jdbc:postgresql://h/db?sslmode | STATE_PROXY_PG_URL: sslmode '' is not supported",
        "STATE_PROXY_PG_URL|postgres://h/db?sslmode=verify-full | STATE_PROXY_PG_URL: sslmode=verify-full needs sslrootcert",
        "STATE_PROXY_PG_URL|postgres://h/db?sslmode=require&sslrootcert=/ca.pem | STATE_PROXY_PG_URL: sslrootcert is only used with",
        "CONNECTOR_SOCKET_MODE|rw-rw-rw- | CONNECTOR_SOCKET_MODE:",
        "CONNECTOR_SOCKET_MODE|0999   | CONNECTOR_SOCKET_MODE:",
        "CONNECTOR_MAX_BODY_BYTES|big | CONNECTOR_MAX_BODY_BYTES: 'big' is not an integer",
        "CONNECTOR_MAX_BODY_BYTES|0   | CONNECTOR_MAX_BODY_BYTES: '0' is outside",
        "CONNECTOR_PG_POOL_SIZE|-3    | CONNECTOR_PG_POOL_SIZE:",
        "CONNECTOR_PG_TIMEOUT_MS|10   | CONNECTOR_PG_TIMEOUT_MS:",
        "CONNECTOR_EVENT_LOOPS|0      | CONNECTOR_EVENT_LOOPS: '0' is outside",
        "CONNECTOR_EVENT_LOOPS|two    | CONNECTOR_EVENT_LOOPS: 'two' is not an integer",
      })
  void badVariablesAreNamed(String name, String value, String message) {
    assertThatThrownBy(() -> KvConfig.fromEnv(env(name, value)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message.trim());
  }

  @Test
  void theReactiveClientGetsTheSameDatabaseUserAndTlsSettings() {
    var full =
        KeyStatements.connectOptions(
            KvConfig.fromEnv(
                env(
                    "STATE_PROXY_PG_URL",
                    "postgres://u:p%20w@db.local:5433/app?sslmode=verify-full&sslrootcert=/etc/ca%20dir/ca.pem&ApplicationName=kv1")));
    assertThat(full.getHost()).isEqualTo("db.local");
    assertThat(full.getPort()).isEqualTo(5433);
    assertThat(full.getDatabase()).isEqualTo("app");
    assertThat(full.getUser()).isEqualTo("u");
    assertThat(full.getPassword()).isEqualTo("p w");
    assertThat(full.getProperties()).containsEntry("application_name", "kv1");
    assertThat(full.getSslMode()).isEqualTo(io.vertx.pgclient.SslMode.VERIFY_FULL);
    assertThat(full.getSslOptions().getHostnameVerificationAlgorithm()).isEqualTo("HTTPS");
    assertThat(
            ((io.vertx.core.net.PemTrustOptions) full.getSslOptions().getTrustOptions())
                .getCertPaths())
        .containsExactly("/etc/ca dir/ca.pem");
    var ca =
        KeyStatements.connectOptions(
            KvConfig.fromEnv(
                env(
                    "STATE_PROXY_PG_URL",
                    "jdbc:postgresql://h/db?user=x&sslmode=verify-ca&sslrootcert=/ca.pem")));
    assertThat(ca.getUser()).isEqualTo("x");
    assertThat(ca.getSslOptions().getHostnameVerificationAlgorithm()).isEmpty();
    var require =
        KeyStatements.connectOptions(
            KvConfig.fromEnv(env("STATE_PROXY_PG_URL", "postgres://h/db?sslmode=require")));
    assertThat(require.getSslOptions().isTrustAll()).isTrue();
    var plain =
        KeyStatements.connectOptions(
            KvConfig.fromEnv(env("STATE_PROXY_PG_URL", "postgres://h/db")));
    assertThat(plain.getSslMode()).isEqualTo(io.vertx.pgclient.SslMode.DISABLE);
  }

  @Test
  void eventLoopsDefaultToHalfTheCoresAndNeverExceedThePool() {
    assertThat(KvConfig.defaultEventLoops(1)).isEqualTo(1);
    assertThat(KvConfig.defaultEventLoops(2)).isEqualTo(1);
    assertThat(KvConfig.defaultEventLoops(3)).isEqualTo(1);
    assertThat(KvConfig.defaultEventLoops(8)).isEqualTo(4);
    assertThat(KvConfig.fromEnv(env("CONNECTOR_EVENT_LOOPS", "3")).eventLoops()).isEqualTo(3);
    assertThat(
            KvConfig.fromEnv(env("CONNECTOR_EVENT_LOOPS", "6", "CONNECTOR_PG_POOL_SIZE", "2"))
                .eventLoops())
        .isEqualTo(2);
  }

  @Test
  void tooLongSocketPathIsRefused() {
    assertThatThrownBy(() -> KvConfig.fromEnv(env("CONNECTOR_SOCKET", "/tmp/" + "s".repeat(120))))
        .hasMessageContaining("CONNECTOR_SOCKET: path is longer than 107 bytes");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "status;drop table kv",
        "value->>'x'",
        "(a)::text; drop",
        "(a)::regclass",
        "(a b)::timestamptz",
        "(a)",
        "a.b",
        "1abc",
        "(deadline_at)::timestamptz)",
        "((x))::date",
        "lower(name)",
        ",",
        "status,",
        "(x')::date",
        "a_very_long_field_name_that_is_over_forty_chars",
      })
  void indexSpecsOtherThanAFieldOrACastAreRefused(String spec) {
    assertThatThrownBy(() -> KvConfig.fromEnv(env("STATE_PROXY_PG_INDEXES", spec)))
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith("STATE_PROXY_PG_INDEXES: ");
  }

  @Test
  void socketModesInSeveralSpellings() {
    assertThat(PosixFilePermissions.toString(KvConfig.socketMode("0o660"))).isEqualTo("rw-rw----");
    assertThat(PosixFilePermissions.toString(KvConfig.socketMode("600"))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(KvConfig.socketMode("0777"))).isEqualTo("rwxrwxrwx");
  }
}

package io.taskmesh.gateway.fly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(5)
class DatabaseUrlTest {
  @Test
  void jdbcUrlsPassThrough() {
    assertThat(DatabaseUrl.toJdbc("jdbc:postgresql://h:5/db?user=u"))
        .isEqualTo("jdbc:postgresql://h:5/db?user=u");
  }

  @Test
  void dsnBecomesJdbcWithEncodedCredentials() {
    assertThat(DatabaseUrl.toJdbc("postgresql://me:p%40ss@db.local:5433/tasks?sslmode=disable"))
        .isEqualTo("jdbc:postgresql://db.local:5433/tasks?sslmode=disable&user=me&password=p%40ss");
    assertThat(DatabaseUrl.toJdbc("postgres://db/x")).isEqualTo("jdbc:postgresql://db/x");
  }

  @Test
  void otherSchemesAreRefusedNamingTheVariable() {
    assertThatThrownBy(() -> DatabaseUrl.toJdbc("mysql://x/y"))
        .hasMessageContaining("SVC_DATABASE_URL");
  }
}

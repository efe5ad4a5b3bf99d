package io.taskmesh.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MaskedUrlTest {
  @Test
  void aPasswordInTheUserInfoIsMasked() {
    assertThat(MaskedUrl.of("postgresql://dev:s3cr%40t@db.local:5432/taskmesh"))
        .isEqualTo("postgresql://dev:***@db.local:5432/taskmesh");
    assertThat(MaskedUrl.of("jdbc:postgresql://dev:pw@127.0.0.1/taskmesh?sslmode=disable"))
        .isEqualTo("jdbc:postgresql://dev:***@127.0.0.1/taskmesh?sslmode=disable");
  }

  @Test
  void aPasswordParameterIsMasked() {
    assertThat(
            MaskedUrl.of("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=pw&x=1"))
        .isEqualTo("jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres&password=***&x=1");
  }

  @Test
  void aUrlWithoutAPasswordIsLeftAsItIs() {
    for (String url :
        new String[] {
          "postgresql://dev@db.local/taskmesh", "jdbc:postgresql://127.0.0.1:5432/postgres?user=x"
        }) {
      assertThat(MaskedUrl.of(url)).isEqualTo(url);
    }
  }
}

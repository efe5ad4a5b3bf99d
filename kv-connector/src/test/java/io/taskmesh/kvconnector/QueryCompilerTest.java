package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.taskmesh.servicekit.ApiException;
import java.math.BigDecimal;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class QueryCompilerTest {
  private final ObjectMapper m = new ObjectMapper();
  private final QueryCompiler qc =
      new QueryCompiler(List.of(IndexSpec.parse("(deadline_at)::timestamptz")));

  private Query compile(String json) throws Exception {
    return qc.compile(m.readTree(json));
  }

  @Test
  void valuesOnlyEverTravelAsParameters() throws Exception {
    Query q =
        compile(
            "{\"prefix\":\"a%_\\\\\",\"filter\":{\"name\":\"x'; DROP TABLE kv; --\",\"n\":{\"$gt\":5}},"
                + "\"sort\":[\"-n\"],\"limit\":10,\"offset\":20,\"count\":true}");
    assertThat(q.selectSql()).doesNotContain("DROP").doesNotContain("x'");
    assertThat(q.selectSql())
        .contains("key LIKE ? ESCAPE")
        .contains("LIMIT ?")
        .contains("OFFSET ?")
        .contains("ORDER BY (value->'n') DESC NULLS LAST, key");
    assertThat(q.selectParams())
        .contains("a\\%\\_\\\\%", "x'; DROP TABLE kv; --", new BigDecimal("5"), 10L, 20L);
    assertThat(q.countSql()).startsWith("SELECT count(*) FROM kv WHERE").doesNotContain("LIMIT");
  }

  @Test
  void castIndexedFieldsUseTheIndexedExpression() throws Exception {
    Query q = compile("{\"filter\":{\"deadline_at\":{\"$lt\":\"2030-01-01T00:00:00Z\"}}}");
    assertThat(q.selectSql())
        .contains("kv_try_timestamptz((value->>'deadline_at')) < ?::timestamptz");
  }

  @Test
  void existsUsesTheEscapedQuestionMarkOperator() throws Exception {
    assertThat(compile("{\"filter\":{\"a\":{\"$exists\":true}}}").selectSql())
        .contains("(value ?? ?)");
  }

  @Test
  void noCountNoTotalQuery() throws Exception {
    assertThat(compile("{}").countSql()).isNull();
    assertThat(compile("{}").selectSql()).endsWith("ORDER BY key");
  }

  @Test
  void tooManyInValuesOrSortFields() {
    StringBuilder many = new StringBuilder("[");
    for (int i = 0; i <= QueryCompiler.MAX_IN; i++) {
      many.append(i == 0 ? "" : ",").append(i);
    }
    assertThatThrownBy(() -> compile("{\"filter\":{\"n\":{\"$in\":" + many + "]}}}"))
        .isInstanceOf(ApiException.class)
        .hasMessageContaining("more than 1000");
    assertThatThrownBy(
            () -> compile("{\"sort\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}"))
        .hasMessageContaining("more than 8");
  }

  @Test
  void injectionInFieldNamesIsRefusedBeforeAnySql() {
    for (String bad : List.of("a'b", "a)--", "a\\\"b", "é", "a;b", "$where")) {
      assertThatThrownBy(() -> compile("{\"filter\":{\"" + bad + "\":1}}"))
          .isInstanceOf(ApiException.class)
          .extracting(e -> ((ApiException) e).status())
          .isEqualTo(400);
    }
  }
}

package io.taskmesh.kvconnector;

import static io.taskmesh.kvconnector.KvConnectorIT.assertError;
import static io.taskmesh.kvconnector.KvConnectorIT.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code POST /query}: every operator alone, sorting, paging, totals and hostile field names. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class KvQueryIT {
  private static KvFixture kv;
  private static UnixHttp http;

  @BeforeAll
  static void start() throws Exception {
    kv = KvFixture.start(Map.of("STATE_PROXY_PG_INDEXES", "status,(deadline_at)::timestamptz"));
    http = kv.http;
    put(
        "q/a",
        "{\"status\":\"pending\",\"n\":2,\"name\":\"alpha\",\"tags\":[\"x\",\"y\"],\"deadline_at\":\"2030-01-01T10:00:00Z\",\"o\":{\"k\":1}}");
    put(
        "q/b",
        "{\"status\":\"running\",\"n\":10,\"name\":\"beta\",\"tags\":[\"y\"],\"deadline_at\":\"2030-01-01T09:30:00-01:00\"}");
    put(
        "q/c",
        "{\"status\":\"failed\",\"n\":1.5,\"name\":\"gamma\",\"tags\":[],\"deadline_at\":\"2030-01-01T10:00:00.500Z\"}");
    put("q/d", "{\"status\":\"pending\",\"n\":\"7\",\"name\":\"delta\",\"nil\":null}");
    put("r/e", "{\"status\":\"pending\",\"n\":3}");
  }

  @AfterAll
  static void stop() throws Exception {
    kv.close();
  }

  private static void put(String key, String json) {
    assertThat(http.put("/keys/" + key, json).status()).isEqualTo(201);
  }

  private static List<String> keys(String body) {
    UnixHttp.Resp r = http.post("/query", body);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    List<String> keys = new ArrayList<>();
    json(r).path("rows").forEach(row -> keys.add(row.path("key").asText()));
    return keys;
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"status\":\"pending\"}                        | q/a,q/d",
        "{\"status\":{\"$eq\":\"running\"}}               | q/b",
        "{\"n\":2}                                        | q/a",
        "{\"n\":2.0}                                      | q/a",
        "{\"n\":{\"$ne\":2}}                              | q/b,q/c,q/d",
        "{\"n\":{\"$gt\":2}}                              | q/b",
        "{\"n\":{\"$gte\":2}}                             | q/a,q/b",
        "{\"n\":{\"$lt\":2}}                              | q/c",
        "{\"n\":{\"$lte\":2}}                             | q/a,q/c",
        "{\"name\":{\"$gt\":\"beta\"}}                    | q/c,q/d",
        "{\"n\":{\"$gt\":\"5\"}}                          | q/d",
        "{\"status\":{\"$in\":[\"running\",\"failed\"]}}  | q/b,q/c",
        "{\"status\":{\"$nin\":[\"pending\"]}}            | q/b,q/c",
        "{\"n\":{\"$in\":[]}}                             | ''",
        "{\"nil\":{\"$exists\":true}}                     | q/d",
        "{\"tags\":{\"$exists\":false}}                   | q/d",
        "{\"nil\":null}                                   | q/d",
        "{\"tags\":{\"$contains\":\"x\"}}                 | q/a",
        "{\"name\":{\"$contains\":\"mm\"}}                | q/c",
        "{\"tags\":{\"$contains\":[\"y\"]}}               | q/a,q/b",
        "{\"o\":{\"k\":1}}                                | q/a",
        "{\"o\":{\"$contains\":{\"k\":1}}}                | q/a",
        "{\"n\":{\"$gte\":1.5,\"$lt\":10}}                | q/a,q/c",
        "{\"status\":\"pending\",\"n\":{\"$exists\":true}} | q/a,q/d",
        "{\"missing\":{\"$ne\":1}}                        | q/a,q/b,q/c,q/d",
        "{\"missing\":{\"$nin\":[1]}}                     | q/a,q/b,q/c,q/d",
      })
  void eachOperator(String filter, String expected) {
    List<String> want = expected.isEmpty() ? List.of() : List.of(expected.split(","));
    assertThat(keys("{\"prefix\":\"q/\",\"filter\":" + filter + "}"))
        .containsExactlyElementsOf(want);
  }

  @Test
  void castIndexedFieldsCompareAsTheirType() {
    // 09:30-01:00 is 10:30Z: later than 10:00Z and 10:00:00.500Z, though smaller as a string
    assertThat(
            keys(
                "{\"prefix\":\"q/\",\"filter\":{\"deadline_at\":{\"$gt\":\"2030-01-01T10:00:00.100Z\"}}}"))
        .containsExactly("q/b", "q/c");
    assertThat(
            keys(
                "{\"prefix\":\"q/\",\"filter\":{\"deadline_at\":{\"$lt\":\"2030-01-01T10:00:00.100+00:00\"}}}"))
        .containsExactly("q/a");
    assertError(
        http.post("/query", "{\"filter\":{\"deadline_at\":{\"$lt\":\"yesterday-ish\"}}}"),
        400,
        "bad_request",
        "rejected");
  }

  @Test
  void numbersSortAsNumbersAndStringsAsStrings() {
    // jsonb order: strings before numbers; 1.5 < 2 < 10 numerically (not "10" < "2")
    assertThat(keys("{\"prefix\":\"q/\",\"sort\":[\"n\"]}"))
        .containsExactly("q/d", "q/c", "q/a", "q/b");
    assertThat(keys("{\"prefix\":\"q/\",\"sort\":[\"-n\"]}"))
        .containsExactly("q/b", "q/a", "q/c", "q/d");
    assertThat(keys("{\"prefix\":\"q/\",\"sort\":[\"-name\"]}"))
        .containsExactly("q/c", "q/d", "q/b", "q/a");
    assertThat(keys("{\"prefix\":\"q/\",\"sort\":[\"status\",\"-name\"]}"))
        .containsExactly("q/c", "q/d", "q/a", "q/b");
    assertThat(keys("{\"sort\":[\"-n\"],\"filter\":{\"n\":{\"$lt\":3}}}"))
        .containsExactly("q/a", "q/c");
  }

  @Test
  void countIsTheTotalOfMatchingRowsNotThePage() {
    UnixHttp.Resp r =
        http.post(
            "/query",
            "{\"prefix\":\"q/\",\"sort\":[\"name\"],\"limit\":2,\"offset\":1,\"count\":true}");
    JsonNode b = json(r);
    assertThat(b.path("total").asLong()).isEqualTo(4);
    assertThat(b.path("rows")).hasSize(2);
    assertThat(b.path("rows").get(0).path("key").asText()).isEqualTo("q/b");
    assertThat(b.path("rows").get(0).path("value").path("name").asText()).isEqualTo("beta");
    assertThat(b.path("rows").get(0).has("created_at")).isTrue();
    JsonNode past = json(http.post("/query", "{\"prefix\":\"q/\",\"offset\":100,\"count\":true}"));
    assertThat(past.path("rows")).isEmpty();
    assertThat(past.path("total").asLong()).isEqualTo(4);
    assertThat(json(http.post("/query", "{\"prefix\":\"q/\"}")).has("total")).isFalse();
    assertThat(json(http.post("/query", "{}")).path("rows")).hasSize(5);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"filter\":{\"status'); DROP TABLE kv; --\":1}}",
        "{\"filter\":{\"a-b\":1}}",
        "{\"filter\":{\"1abc\":1}}",
        "{\"filter\":{\"\":1}}",
        "{\"filter\":{\"a b\":1}}",
        "{\"filter\":{\"a'\":{\"$exists\":true}}}",
        "{\"sort\":[\"-status desc; DROP TABLE kv\"]}",
        "{\"sort\":[\"--n\"]}",
        "{\"sort\":[\"value->>'x'\"]}",
      })
  void hostileFieldNamesAre400(String body) throws Exception {
    assertError(http.post("/query", body), 400, "bad_request", "^[a-zA-Z_][a-zA-Z0-9_]*$");
    try (Connection c = kv.jdbc();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM kv")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(5);
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{\"filter\":{\"n\":{\"$regex\":\"x\"}}}          | unknown operator",
        "{\"filter\":{\"n\":{\"$gt\":1,\"plain\":2}}}     | cannot mix",
        "{\"filter\":{\"n\":{\"$in\":5}}}                 | needs an array",
        "{\"filter\":{\"n\":{\"$nin\":\"x\"}}}            | needs an array",
        "{\"filter\":{\"n\":{\"$exists\":1}}}             | true or false",
        "{\"filter\":{\"n\":{\"$gt\":[1]}}}               | number or a string",
        "{\"filter\":{\"n\":{\"$lte\":true}}}             | number or a string",
        "{\"filter\":[1]}                                 | 'filter' must be an object",
        "{\"prefix\":5}                                   | 'prefix' must be a string",
        "{\"sort\":5}                                     | 'sort' must be an array",
        "{\"sort\":[5]}                                   | entries must be strings",
        "{\"limit\":-1}                                   | 'limit' must be a non-negative integer",
        "{\"limit\":1.5}                                  | 'limit' must be a non-negative integer",
        "{\"offset\":\"3\"}                               | 'offset' must be a non-negative integer",
        "{\"count\":\"yes\"}                              | 'count' must be a boolean",
        "{\"fitler\":{}}                                  | unknown query field 'fitler'",
        "[]                                               | must be a JSON object",
        "{\"filter\":                                     | ends before its JSON is complete",
      })
  void badQueriesAre400WithAReason(String body, String reason) {
    assertError(http.post("/query", body), 400, "bad_request", reason);
  }
}

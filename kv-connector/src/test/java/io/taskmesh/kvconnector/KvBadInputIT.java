package io.taskmesh.kvconnector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.taskmesh.devkit.BadInputs;
import io.taskmesh.servicekit.ClientText;
import java.nio.charset.StandardCharsets;
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

/**
 * Issue 33 items 7 and 9 on the kv-connector: every bad-input class of {@link BadInputs} to both
 * body routes ({@code PUT /keys/{key}}, {@code POST /query}) and bad keys and query values to the
 * key and listing routes, on a real socket and Postgres. A case is clean when the answer is not a
 * 5xx, names no Java class or exception ({@link ClientText}), and the table is unchanged (a PUT of
 * a value that is one storable JSON document is a valid write and may change it).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class KvBadInputIT {
  private static final ObjectMapper STRICT =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static KvFixture kv;

  @BeforeAll
  static void start() throws Exception {
    kv = KvFixture.start(Map.of());
    assertThat(kv.http.put("/keys/sweep", "{\"status\":\"pending\"}").status()).isEqualTo(201);
  }

  @AfterAll
  static void stop() throws Exception {
    kv.close();
  }

  /** Every row, key and value: what a refused request must leave as it was. */
  private static String table() {
    try (Connection c = kv.jdbc();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT key, value::text FROM kv ORDER BY key")) {
      StringBuilder out = new StringBuilder();
      while (rs.next()) {
        out.append(rs.getString(1)).append('=').append(rs.getString(2)).append('\n');
      }
      return out.toString();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A PUT body that is one JSON document Postgres can hold is a value, not bad input. */
  private static boolean storable(byte[] body) {
    try {
      String text = new String(body, StandardCharsets.UTF_8);
      return STRICT.readTree(body) != null
          && !STRICT.readTree(body).isMissingNode()
          && !text.contains("\\u0000")
          && !text.contains("1e999999");
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void everyBadBodyOnBothBodyRoutesAnswersCleanlyAndChangesNothing() {
    Tally tally = new Tally();
    for (String wrapper : List.of("%s", "{\"filter\":%s}", "{\"prefix\":\"s\",\"sort\":%s}")) {
      for (BadInputs.Case c : BadInputs.bodies(wrapper)) {
        for (String[] route :
            List.of(new String[] {"PUT", "/keys/sweep"}, new String[] {"POST", "/query"})) {
          String before = table();
          UnixHttp.Resp r = kv.http.sendBytes(route[0], route[1], c.body(), c.contentType());
          boolean valid = route[0].equals("PUT") && storable(c.body());
          String what = route[0] + " " + route[1] + " " + wrapper + " " + c;
          tally.check(what, r, valid || before.equals(table()));
          if (valid) {
            kv.http.put("/keys/sweep", "{\"status\":\"pending\"}");
          }
        }
      }
    }
    tally.report("kv-connector body routes");
    assertThat(tally.failures).isEmpty();
    assertThat(tally.tried).isGreaterThan(150);
  }

  /** (Malformed escapes such as a lone '%' the test's HTTP client refuses to send.) */
  @Test
  void badKeysAndQueryValuesAnswerCleanlyAndChangeNothing() {
    Tally tally = new Tally();
    List<String> keys = List.of("a%FFb", "%C0%AF", "a%00b", "a%0Ab", "%ED%A0%80", "%F4%90%80%80");
    for (String key : keys) {
      for (String method : List.of("GET", "HEAD", "DELETE", "PUT")) {
        String before = table();
        UnixHttp.Resp r =
            kv.http.sendBytes(
                method,
                "/keys/" + key,
                method.equals("PUT") ? "{}".getBytes() : null,
                "application/json");
        tally.check(method + " /keys/" + key, r, before.equals(table()));
      }
    }
    for (String query :
        List.of(
            "prefix=%FF",
            "prefix=a%00", "limit=x", "limit=1e999", "delimiter=%C0%AF", "prefix=%ED%A0%80")) {
      String before = table();
      UnixHttp.Resp r = kv.http.get("/keys/?" + query);
      tally.check("GET /keys/?" + query, r, before.equals(table()));
      r =
          kv.http.sendBytes(
              "PUT", "/keys/sweep?if_status=" + query, "{}".getBytes(), "application/json");
      tally.check("PUT /keys/sweep?if_status=" + query, r, before.equals(table()));
    }
    tally.report("kv-connector keys and queries");
    assertThat(tally.failures).isEmpty();
  }

  /** Issue 33 item 9: {@code a%FFb} was stored as the key {@code a\ufffdb}. */
  @Test
  void aKeyThatIsNotPercentEncodedUtf8IsRefused() {
    String before = table();
    UnixHttp.Resp r = kv.http.put("/keys/x%FFy", "{}");
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("not percent-encoded UTF-8");
    assertThat(table()).isEqualTo(before);
    assertThat(kv.http.put("/keys/x%C3%A9y", "{}").status()).isEqualTo(201);
    assertThat(kv.http.get("/keys/x%C3%A9y").body()).contains("\"key\":\"x\u00e9y\"");
    kv.http.delete("/keys/x%C3%A9y");
  }

  /** Issue 33 item 9: the spec's sort is string[]; a lone string was accepted. */
  @Test
  void aSortThatIsAStringIsRefused() {
    UnixHttp.Resp r = kv.http.post("/query", "{\"sort\":\"-key\"}");
    assertThat(r.status()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("'sort' must be an array");
    assertThat(kv.http.post("/query", "{\"sort\":[\"-status\"]}").status()).isEqualTo(200);
  }

  /** Cases tried and clean, with what was wrong with each unclean one. */
  static final class Tally {
    int tried;
    int clean;
    final List<String> failures = new ArrayList<>();

    void check(String what, UnixHttp.Resp r, boolean unchanged) {
      tried++;
      String body = r.body() == null ? "" : r.body();
      List<String> wrong = new ArrayList<>();
      if (r.status() >= 500) {
        wrong.add("status " + r.status());
      }
      ClientText.leak(body).ifPresent(l -> wrong.add("names '" + l + "'"));
      if (!unchanged) {
        wrong.add("changed state (" + r.status() + ")");
      }
      if (wrong.isEmpty()) {
        clean++;
      } else {
        failures.add(
            what + ": " + wrong + " " + (body.length() > 120 ? body.substring(0, 120) : body));
      }
    }

    void report(String what) {
      System.out.printf("%s: %d cases tried, %d clean%n", what, tried, clean);
      failures.stream().limit(60).forEach(f -> System.out.println("  " + f));
    }
  }
}

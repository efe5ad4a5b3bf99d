package io.taskmesh.meshapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.taskmesh.devkit.BadInputs;
import io.taskmesh.schemas.ApiDocument;
import io.taskmesh.servicekit.ClientText;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 33 items 7 and 9 on mesh-api: every bad-input class of {@link BadInputs} to both body
 * routes (create on the external port, events on the internal one), bad ids and query values to
 * every GET and DELETE of both ports, against the real connector, Postgres and Kafka. A case is
 * clean when the answer is a 4xx (not a 5xx: a bad request is never the store's failure), its body
 * names no Java class or exception ({@link ClientText}), and nothing changed: the number of
 * envelopes and the target envelope read the same before and after.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class MeshApiBadInputIT {
  private static final String P = "/api/v1/mesh";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * Requests among the cases that are valid (route prefix, case): create takes an empty body (or
   * null) for all defaults, and a status event's data is free-form apart from actor and progress.
   * They may change state; their answers are still checked for 5xx and leaks.
   */
  private static final List<String[]> VALID =
      List.of(
          new String[] {"POST " + P + " (external)", " empty body"},
          new String[] {"POST " + P + " (external)", " whitespace body"},
          new String[] {"POST " + P + " (external)", " null"},
          new String[] {
            "POST " + P + "/{id}/events (internal) {\"type\":\"status\"", " wrong types 2"
          });

  private static MeshFixture f;
  private static String envelope;

  @BeforeAll
  static void start() throws Exception {
    f = new MeshFixture(Map.of(), Map.of());
    MeshFixture.Resp r =
        f.send("POST", f.a.ext(P + "/?actor=sweep&namespace=" + f.namespace), "{}");
    assertThat(r.status()).as(r.body()).isEqualTo(201);
    envelope = MeshApiIT.json(r).path("id").asText();
  }

  @AfterAll
  static void stop() throws Exception {
    f.close();
  }

  /** What a bad request must not change: the envelopes' count and the target envelope. */
  private static String state() {
    return MeshApiIT.json(f.send("GET", f.a.ext(P + "/"), null)).path("total").asText()
        + " "
        + f.send("GET", f.a.ext(P + "/" + envelope), null).body();
  }

  @Test
  void everyBadBodyOnBothBodyRoutesIsA4xxInOurWordsAndChangesNothing() {
    Tally tally = new Tally();
    Map<String, String> routes =
        Map.of(
            "POST " + P + " (external)",
            f.a.ext(P + "/?actor=sweep&namespace=" + f.namespace),
            "POST " + P + "/{id}/events (internal)",
            f.a.internal(P + "/" + envelope + "/events"));
    List<String> wrappers =
        List.of(
            "%s",
            "{\"type\":\"status\",\"status\":\"running\",\"data\":%s}",
            "{\"type\":\"fly\",\"data\":%s}",
            "{\"payload\":{},\"headers\":%s}");
    for (var route : routes.entrySet()) {
      for (String wrapper : wrappers) {
        for (BadInputs.Case c : BadInputs.bodies(wrapper)) {
          String before = state();
          HttpResponse<String> r = send("POST", route.getValue(), c.body(), c.contentType());
          String name = route.getKey() + " " + wrapper + " " + c;
          boolean valid =
              VALID.stream().anyMatch(v -> name.startsWith(v[0]) && name.endsWith(v[1]));
          tally.check(name, r, valid || before.equals(state()));
        }
      }
    }
    tally.report("mesh-api body routes");
    assertThat(tally.failures).isEmpty();
    assertThat(tally.tried).isGreaterThan(200);
  }

  /** Issue 33 item 9: a status event with a NUL in its data was a 502 (the store refused it). */
  @Test
  void aNulInStatusDataIsA400NamingTheField() {
    String before = state();
    HttpResponse<String> r =
        send(
            "POST",
            f.a.internal(P + "/" + envelope + "/events"),
            "{\"type\":\"status\",\"status\":\"running\",\"data\":{\"actor\":\"a\\u0000b\"}}"
                .getBytes(),
            "application/json");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(r.body()).contains("data.actor").contains("\\\\u0000");
    assertThat(state()).isEqualTo(before);
  }

  @Test
  void badIdsAndQueryValuesOnEveryGetAndDeleteAnswerCleanly() {
    Tally tally = new Tally();
    List<String> badIds = List.of("%00", "a%00b", "%FF", "a%FFb", "%C0%AF", "x".repeat(3000));
    String badQuery = "?limit=%FF&offset=1e999&status=%00&actor=%00";
    List<String> ops = new ArrayList<>();
    ApiDocument.operationsServedBy("mesh-api:external").forEach(o -> ops.add("ext " + o));
    ApiDocument.operationsServedBy("mesh-api:internal").forEach(o -> ops.add("int " + o));
    for (String op : ops) {
      String[] parts = op.split(" ");
      String method = parts[1];
      String template = parts[2];
      if (method.equals("POST")) {
        continue; // the body routes above
      }
      List<String> paths = new ArrayList<>();
      if (template.contains("{id}")) {
        badIds.forEach(id -> paths.add(template.replace("{id}", id)));
      }
      paths.add(template.replace("{id}", "00000000-0000-0000-0000-000000000000") + badQuery);
      for (String path : paths) {
        String url = parts[0].equals("ext") ? f.a.ext(path) : f.a.internal(path);
        String before = state();
        HttpResponse<String> r = send(method, url, null, null);
        tally.check(op + " " + abbreviated(path), r, before.equals(state()));
      }
    }
    tally.report("mesh-api GET/DELETE routes");
    assertThat(tally.failures).isEmpty();
    assertThat(tally.tried).isGreaterThan(20);
  }

  private static String abbreviated(String s) {
    return s.length() > 80 ? s.substring(0, 80) + "..." : s;
  }

  private static HttpResponse<String> send(String method, String url, byte[] body, String type) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (type != null) {
      b.header("Content-Type", type);
    }
    try {
      return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (Exception e) {
      throw new AssertionError(method + " " + url + ": no answer", e);
    }
  }

  /** Cases tried and clean, with what was wrong with each unclean one. */
  static final class Tally {
    int tried;
    int clean;
    final List<String> failures = new ArrayList<>();

    void check(String what, HttpResponse<String> r, boolean unchanged) {
      tried++;
      String body = r.body() == null ? "" : r.body();
      List<String> wrong = new ArrayList<>();
      if (r.statusCode() >= 500) {
        wrong.add("status " + r.statusCode());
      }
      ClientText.leak(body).ifPresent(l -> wrong.add("names '" + l + "'"));
      if (!unchanged) {
        wrong.add("changed state (" + r.statusCode() + ")");
      }
      if (wrong.isEmpty()) {
        clean++;
      } else {
        failures.add(what + ": " + wrong + " " + abbreviated(body));
      }
    }

    void report(String what) {
      System.out.printf("%s: %d cases tried, %d clean%n", what, tried, clean);
      failures.stream().limit(60).forEach(f -> System.out.println("  " + f));
    }
  }
}

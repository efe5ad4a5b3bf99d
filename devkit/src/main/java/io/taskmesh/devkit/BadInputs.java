package io.taskmesh.devkit;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The bad request bodies every service's sweep sends to every route that takes a body: what a
 * careless client or an attacker sends instead of the JSON a route wants (issue 33). Each answer
 * must be a 4xx (or the protocol's error object) in our own words, and change nothing.
 */
public final class BadInputs {
  /** One bad body: a name for the report, its bytes and the Content-Type it is sent with. */
  // bytes carried from one side to the other, never compared or used as a key
  @SuppressWarnings("ArrayRecordComponent")
  public record Case(String name, byte[] body, String contentType) {
    @Override
    public String toString() {
      return name;
    }
  }

  private BadInputs() {}

  /**
   * The bad-input classes: malformed JSON, NaN, deep nesting, wrong value types, an array instead
   * of an object, huge numbers, NUL characters, invalid UTF-8, an empty body, a wrong content type.
   * {@code wrapper} is a JSON object with one {@code %s} where the route's own fields go (for
   * JSON-RPC routes, the request envelope around bad params), or just {@code "%s"}.
   */
  public static List<Case> bodies(String wrapper) {
    List<Case> cases = new ArrayList<>();
    json(cases, "malformed", "{bad");
    json(cases, "truncated", "{\"id\":\"a\",");
    json(cases, "single quotes", "{'id':'a'}");
    json(cases, "trailing data", "{\"id\":\"a\"} x");
    json(cases, "NaN", wrap(wrapper, "{\"id\":NaN,\"limit\":NaN,\"n\":NaN}"));
    json(cases, "Infinity", "{\"timeout\":-Infinity}");
    json(cases, "deep arrays", "[".repeat(5000) + "]".repeat(5000));
    json(cases, "deep objects", wrap(wrapper, "{\"a\":".repeat(3000) + "1" + "}".repeat(3000)));
    json(cases, "wrong types", wrap(wrapper, WRONG_TYPES));
    json(cases, "wrong types 2", wrap(wrapper, WRONG_TYPES_2));
    json(cases, "array instead of object", "[" + wrap(wrapper, "{\"id\":\"a\"}") + "]");
    json(cases, "empty array", "[]");
    json(cases, "scalar", "42");
    json(cases, "null", "null");
    json(cases, "string", "\"text\"");
    json(
        cases,
        "huge numbers",
        wrap(
            wrapper,
            "{\"limit\":1e999999,\"offset\":99999999999999999999999999,"
                + "\"current_actor_idx\":99999999999999999999,\"timeout\":1e400,"
                + "\"progress\":-1e308,\"n\":99999999999999999999}"));
    json(cases, "long number", wrap(wrapper, "{\"n\":" + "9".repeat(5000) + "}"));
    json(
        cases,
        "escaped NUL",
        wrap(wrapper, "{\"id\":\"a\\u0000b\",\"name\":\"echo\\u0000\",\"status\":\"x\\u0000\"}"));
    cases.add(new Case("raw NUL", raw("{\"id\":\"a", new byte[] {0}, "b\"}"), "application/json"));
    cases.add(new Case("NUL bytes only", new byte[] {0, 0, 0, 0}, "application/json"));
    cases.add(
        new Case(
            "invalid UTF-8",
            raw("{\"id\":\"", new byte[] {(byte) 0xff, (byte) 0xfe, (byte) 0xc3}, "\"}"),
            "application/json"));
    cases.add(
        new Case(
            "overlong UTF-8",
            raw("{\"name\":\"", new byte[] {(byte) 0xc0, (byte) 0xaf}, "\"}"),
            "application/json"));
    cases.add(new Case("empty body", new byte[0], "application/json"));
    cases.add(
        new Case("whitespace body", "  \n ".getBytes(StandardCharsets.UTF_8), "application/json"));
    cases.add(new Case("wrong content type", utf8("{bad"), "text/plain"));
    cases.add(new Case("form body", utf8("name=echo&a=%00"), "application/x-www-form-urlencoded"));
    return cases;
  }

  /** Every field name a route of ours reads, each with a value of the wrong kind. */
  private static final String WRONG_TYPES =
      "{\"id\":[1],\"name\":{\"a\":1},\"arguments\":\"x\",\"status\":7,\"error\":{},"
          + "\"result\":\"\",\"message\":[],\"role\":1,\"parts\":\"x\",\"messageId\":{},"
          + "\"taskId\":[],\"contextId\":3,\"configuration\":[],\"metadata\":\"m\","
          + "\"prev\":1,\"curr\":[],\"next\":{},\"actors\":\"a\",\"current_actor_idx\":\"1\","
          + "\"progress\":\"half\",\"payload\":7,\"headers\":[],\"timeout\":\"soon\",\"type\":[],"
          + "\"data\":\"d\",\"sort\":\"x\",\"filter\":[],\"limit\":\"x\",\"offset\":{},"
          + "\"count\":\"yes\",\"prefix\":5,\"historyLength\":\"all\",\"url\":[],\"token\":{},"
          + "\"pushNotificationConfig\":\"p\",\"current\":\"0\",\"kind\":5,\"cursor\":[]}";

  /** The same names with the other wrong kinds (strings for objects, objects for strings). */
  private static final String WRONG_TYPES_2 =
      "{\"id\":{},\"name\":true,\"arguments\":[1],\"status\":[\"failed\"],\"error\":5,"
          + "\"message\":{\"role\":{},\"parts\":[{\"kind\":[],\"text\":{}}],\"messageId\":7},"
          + "\"prev\":{},\"curr\":{},\"next\":\"n\",\"actors\":[1,{}],\"current_actor_idx\":1.5,"
          + "\"payload\":[],\"headers\":{\"h\":[]},\"timeout\":-5,\"type\":\"status\","
          + "\"data\":{\"status\":[]},\"sort\":[{\"f\":1}],\"filter\":{\"a\":{\"$gt\":[]}},"
          + "\"limit\":-1,\"offset\":1.5,\"count\":1,\"historyLength\":-3}";

  private static String wrap(String wrapper, String fields) {
    return wrapper.replace("%s", fields);
  }

  private static void json(List<Case> cases, String name, String body) {
    cases.add(new Case(name, utf8(body), "application/json"));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] raw(String before, byte[] middle, String after) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(utf8(before));
    out.writeBytes(middle);
    out.writeBytes(utf8(after));
    return out.toByteArray();
  }
}

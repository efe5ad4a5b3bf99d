package io.taskmesh.kvconnector;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.taskmesh.servicekit.ApiException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The streaming "exactly one JSON value" check of PUT bodies (no tree is built). */
class JsonBodyCheckTest {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "{}",
        "[]",
        "1",
        "-2.5e10",
        "\"s\"",
        "null",
        "true",
        " {\"a\": [1, {\"b\": null}]} \n",
        "{\"s\":\"\\u00e9\\n\\\"\"}",
        "123456789012345678901234567890",
        "\"\u00e9\u4e2d\""
      })
  void acceptsOneValue(String body) {
    assertDoesNotThrow(() -> JsonBodies.checkOneJsonValue(body.getBytes(StandardCharsets.UTF_8)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{'a':1}",
        "[1,2",
        "{\"a\":tru}",
        "\"abc\\q\"",
        "1 2",
        "{} {}",
        " ",
        "{\"a\":\"x\ny\"}",
        "{\"a\" 1}",
        "[1,]",
        "{\"a\":1,}",
        "nul",
        "01",
        "\"unterminated",
        "{\"a\":[1,2}]",
        "NaN",
        "{\"a\":1}]"
      })
  void refusesAnythingElse(String body) {
    ApiException e =
        assertThrows(
            ApiException.class,
            () -> JsonBodies.checkOneJsonValue(body.getBytes(StandardCharsets.UTF_8)));
    assertEquals(400, e.status());
  }

  @org.junit.jupiter.api.Test
  void refusesInvalidUtf8() {
    byte[] bad = {'"', (byte) 0xc3, (byte) 0x28, '"'};
    assertThrows(ApiException.class, () -> JsonBodies.checkOneJsonValue(bad));
  }
}

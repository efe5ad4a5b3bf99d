package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real parser and binding failures, each described in our words and none naming a class. */
@Timeout(10)
class JsonErrorsTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  record Call(String name, int count, List<String> tags, Map<String, Object> args, boolean on) {}

  private static String tree(byte[] body) {
    return JsonErrors.describe(catchThrowable(() -> MAPPER.readTree(body)));
  }

  private static String tree(String body) {
    return tree(body.getBytes(StandardCharsets.UTF_8));
  }

  private static String bind(String body) {
    return JsonErrors.describe(catchThrowable(() -> MAPPER.readValue(body, Call.class)));
  }

  @Test
  void syntaxErrorsSayWhereTheJsonBroke() {
    assertThat(tree("{bad")).isEqualTo("body is not valid JSON at line 1, column 2");
    assertThat(tree("{\"a\":NaN}")).contains("at line 1, column").contains("NaN and Infinity");
    assertThat(tree("{\"a\":1")).startsWith("body ends before its JSON is complete at line 1");
    assertThat(tree("{\"a\":\"x\u0000y\"}")).startsWith("body has a control character");
    assertThat(tree(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xff, '"', '}'}))
        .startsWith("body is not valid UTF-8 at line 1");
  }

  @Test
  void dataAfterTheDocumentIsNamed() {
    ObjectMapper strict =
        new ObjectMapper()
            .enable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    assertThat(JsonErrors.describe(catchThrowable(() -> strict.readTree("{\"a\":1} 2"))))
        .startsWith("body has data after its JSON value at line 1");
  }

  @Test
  void limitsAreNamedWithTheirSize() {
    assertThat(tree("[".repeat(1100) + "]".repeat(1100)))
        .isEqualTo("body nests deeper than 1000 levels");
    assertThat(tree("[" + "9".repeat(2000) + "]"))
        .isEqualTo("a number in the body is longer than 1000 characters");
  }

  @Test
  void bindingErrorsNameTheFieldAndTheKindExpected() {
    assertThat(bind("{\"name\":[1]}")).isEqualTo("field 'name' must be a string");
    assertThat(bind("{\"count\":\"x\"}")).isEqualTo("field 'count' must be an integer");
    assertThat(bind("{\"tags\":{}}")).isEqualTo("field 'tags' must be an array");
    assertThat(bind("{\"args\":[]}")).isEqualTo("field 'args' must be an object");
    assertThat(bind("{\"on\":[]}")).isEqualTo("field 'on' must be true or false");
    assertThat(bind("[]")).isEqualTo("body must be an object");
    assertThat(bind("{\"count\":99999999999999999999}"))
        .isEqualTo("a number in the body is out of range at line 1, column 30");
    assertThat(
            JsonErrors.describe("params", catchThrowable(() -> MAPPER.readValue("", Call.class))))
        .isEqualTo("params is empty; send a JSON value");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{bad",
        "{\"a\":NaN}",
        "[[[[",
        "{\"name\":{}}",
        "{\"tags\":\"x\"}",
        "{\"count\":1e400}",
        "{\"count\":true}",
        "'single'",
        "{\"a\":1}x",
        "\u0000",
        "{\"tags\":[[1]]}"
      })
  void noDescriptionNamesTheCodeBehindIt(String body) {
    assertThat(ClientText.leak(tree(body))).isEmpty();
    assertThat(ClientText.leak(bind(body))).isEmpty();
  }

  @Test
  void theLeakCheckCatchesWhatTheParserSays() {
    Throwable e = catchThrowable(() -> MAPPER.readValue("{\"tags\":{}}", Call.class));
    assertThat(ClientText.leak(e.getMessage())).isPresent();
    assertThat(
            ClientText.leak(
                "Non-standard token 'NaN': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS`"))
        .contains("JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS");
    assertThat(ClientText.leak("io.taskmesh.unixhttp.HttpResponseReader$NoResponseException"))
        .isPresent();
    assertThat(ClientText.isClean("field 'text' must be a string")).isTrue();
    assertThat(ClientText.isClean("TaskNotFoundError: no task abc")).isTrue();
  }
}

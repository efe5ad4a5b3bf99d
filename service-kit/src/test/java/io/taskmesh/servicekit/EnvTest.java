package io.taskmesh.servicekit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(10)
class EnvTest {
  enum Mode {
    API,
    MESH
  }

  private static Env env(String name, String value) {
    return Env.of(Map.of(name, value));
  }

  @Test
  void unsetAndBlankTakeTheDefaults() {
    Env e = Env.of(Map.of("BLANK", "  "));
    assertThat(e.integer("N", 7, 1, 9)).isEqualTo(7);
    assertThat(e.integer("BLANK", 7, 1, 9)).isEqualTo(7);
    assertThat(e.bool("B", true)).isTrue();
    assertThat(e.duration("D", "5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(e.choice("M", Mode.class, Mode.MESH)).isEqualTo(Mode.MESH);
    assertThat(e.optional("BLANK")).isNull();
    assertThat(e.string("BLANK", "x"))
        .isEmpty(); // set but blank stays blank (an empty prefix is a value)
    assertThat(e.string("UNSET", "x")).isEqualTo("x");
    assertThat(e.list("L", "a, b,,c")).containsExactly("a", "b", "c");
  }

  @Test
  void valuesAreTrimmedAndTyped() {
    assertThat(env("N", " 42 ").integer("N", 0, 0, 100)).isEqualTo(42);
    assertThat(env("B", "YES").bool("B", false)).isTrue();
    assertThat(env("B", "0").bool("B", true)).isFalse();
    assertThat(env("D", "1.5s").duration("D", "1s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(env("D", "300").duration("D", "1s")).isEqualTo(Duration.ofSeconds(300));
    assertThat(env("D", "500ms").duration("D", "1s")).isEqualTo(Duration.ofMillis(500));
    assertThat(env("D", "1h").duration("D", "1s")).isEqualTo(Duration.ofHours(1));
    assertThat(env("M", "api").choice("M", Mode.class, null)).isEqualTo(Mode.API);
    assertThat(env("R", " v ").required("R")).isEqualTo("v");
    assertThat(env("L", "x,y").list("L", "")).isEqualTo(List.of("x", "y"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "int     | x    | SVC_X: 'x' is not an integer",
        "int     | 99   | SVC_X: '99' is outside 1..10",
        "bool    | sure | SVC_X: 'sure' is not a boolean",
        "dur     | soon | SVC_X: must be a duration",
        "choice  | edge | SVC_X: must be one of api, mesh, not 'edge'",
        "req     | ' '  | SVC_X: required but not set",
      })
  void everyBadValueNamesTheVariable(String kind, String value, String message) {
    Env e = env("SVC_X", value);
    assertThatThrownBy(
            () -> {
              switch (kind.trim()) {
                case "int" -> e.integer("SVC_X", 1, 1, 10);
                case "bool" -> e.bool("SVC_X", false);
                case "dur" -> e.duration("SVC_X", "1s");
                case "choice" -> e.choice("SVC_X", Mode.class, Mode.API);
                default -> e.required("SVC_X");
              }
            })
        .isInstanceOf(ConfigException.class)
        .hasMessageStartingWith(message.trim())
        .satisfies(t -> assertThat(((ConfigException) t).variable()).isEqualTo("SVC_X"));
  }

  @Test
  void aMissingRequiredChoiceListsTheChoices() {
    assertThatThrownBy(() -> Env.of(Map.of()).choice("SVC_MODE", Mode.class, null))
        .isInstanceOf(ConfigException.class)
        .hasMessage("SVC_MODE: required: one of api, mesh");
  }
}

package io.taskmesh.meshapi;

import static io.taskmesh.meshapi.Statuses.Move.ADVANCE;
import static io.taskmesh.meshapi.Statuses.Move.REFRESH;
import static io.taskmesh.meshapi.Statuses.Move.STALE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StatusesTest {
  @ParameterizedTest(name = "{0} -> {1}: {2}")
  @CsvSource({
      "pending,running,ADVANCE", "pending,paused,ADVANCE", "pending,succeeded,ADVANCE", "pending,canceled,ADVANCE",
      "running,paused,ADVANCE", "running,failed,ADVANCE", "paused,succeeded,ADVANCE",
      "running,pending,STALE", "paused,running,STALE", "paused,pending,STALE",
      "succeeded,failed,STALE", "failed,canceled,STALE", "canceled,succeeded,STALE", "succeeded,succeeded,STALE",
      "succeeded,running,STALE", "canceled,pending,STALE",
      "pending,pending,REFRESH", "running,running,REFRESH", "paused,paused,REFRESH",
  })
  void ordering(String from, String to, Statuses.Move expected) {
    assertThat(Statuses.move(from, to)).isEqualTo(expected);
  }

  @Test
  void ordersAndTerminals() {
    assertThat(Statuses.order("pending")).isZero();
    assertThat(Statuses.order("paused")).isEqualTo(2);
    assertThat(Statuses.terminal("canceled")).isTrue();
    assertThat(Statuses.terminal("paused")).isFalse();
    assertThat(Statuses.known("done")).isFalse();
    assertThatThrownBy(() -> Statuses.order("done")).hasMessageContaining("unknown status 'done'");
    assertThat(ADVANCE).isNotEqualTo(REFRESH).isNotEqualTo(STALE);
  }
}
